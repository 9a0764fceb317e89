#include "targets/codegen/llvm/wasm_runtime.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Target/TargetMachine.h>

#include "core/error.h"

namespace kiln::llvm_backend {
namespace {

// KilnRuntimeApi: version, reserved, pool, parallel_launch, alloc_scratch,
// free_scratch (runtime/kernel_abi.h), pointers of 32 bits here.
// kiln_num_threads tells the loader how many threads the module was built
// for (the target's -num-cores).
constexpr const char* kRuntimeHead = R"(
%KilnRuntimeApi = type { i32, i32, ptr, ptr, ptr, ptr }

@kiln_runtime_api = global %KilnRuntimeApi { i32 1, i32 0, ptr null, ptr @parallel_launch, ptr @alloc_scratch, ptr @free_scratch }, align 8

declare ptr @kiln_host_alloc(i64, i64)
declare void @kiln_host_free(ptr)
)";

// One thread: the launch is its one task.
constexpr const char* kSerialLaunch = R"(
define internal i32 @parallel_launch(ptr %pool, ptr %fn, ptr %closure, i64 %max_tasks) {
  %status = call i32 %fn(i64 0, i64 1, ptr %closure)
  ret i32 %status
}
)";

// Threads: the host's pool runs the tasks (kiln_wasm.js), each thread an
// instance of the module on the shared memory calling `fn` from the
// exported table.
constexpr const char* kPooledLaunch = R"(
declare i32 @kiln_host_parallel_launch(ptr, ptr, i64)

define internal i32 @parallel_launch(ptr %pool, ptr %fn, ptr %closure, i64 %max_tasks) {
  %status = call i32 @kiln_host_parallel_launch(ptr %fn, ptr %closure, i64 %max_tasks)
  ret i32 %status
}
)";

constexpr const char* kRuntimeTail = R"(

define internal ptr @alloc_scratch(ptr %pool, i64 %nbytes, i64 %alignment) {
  %p = call ptr @kiln_host_alloc(i64 %nbytes, i64 %alignment)
  ret ptr %p
}

define internal void @free_scratch(ptr %pool, ptr %p) {
  call void @kiln_host_free(ptr %p)
  ret void
}
)";

}  // namespace

std::unique_ptr<llvm::Module> wasm_runtime_module(const Target& target, llvm::TargetMachine& tm,
                                                  llvm::LLVMContext& ctx) {
  llvm::SMDiagnostic diag;
  const std::string ir = std::string(kRuntimeHead) + (target.num_cores() > 1 ? kPooledLaunch : kSerialLaunch) +
                         kRuntimeTail + "@kiln_num_threads = constant i32 " + std::to_string(target.num_cores()) +
                         ", align 4\n";
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ir, diag, ctx);
  KILN_ICHECK(m) << "the WebAssembly runtime's IR does not parse: " << diag.getMessage().str();
  m->setTargetTriple(target.mtriple());
  m->setDataLayout(tm.createDataLayout());
  return m;
}

}  // namespace kiln::llvm_backend
