#include "targets/codegen/llvm/wasm_runtime.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "core/error.h"
#include "targets/codegen/llvm/target_machine.h"

namespace kiln::llvm_backend {
namespace {

// KilnRuntimeApi: version, reserved, pool, parallel_launch, alloc_scratch,
// free_scratch (runtime/kernel_abi.h), pointers of 32 bits here.
constexpr const char* kRuntimeIr = R"(
%KilnRuntimeApi = type { i32, i32, ptr, ptr, ptr, ptr }

@kiln_runtime_api = global %KilnRuntimeApi { i32 1, i32 0, ptr null, ptr @parallel_launch, ptr @alloc_scratch, ptr @free_scratch }, align 8

declare ptr @kiln_host_alloc(i64, i64)
declare void @kiln_host_free(ptr)

define internal i32 @parallel_launch(ptr %pool, ptr %fn, ptr %closure, i64 %max_tasks) {
  %status = call i32 %fn(i64 0, i64 1, ptr %closure)
  ret i32 %status
}

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

std::string wasm_runtime_object(const Target& target) {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(kRuntimeIr, diag, ctx);
  KILN_ICHECK(m) << "the WebAssembly runtime's IR does not parse: " << diag.getMessage().str();
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(target);
  m->setTargetTriple(target.mtriple());
  m->setDataLayout(tm->createDataLayout());
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  KILN_ICHECK(!tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      << "llvm cannot emit an object for " << target.str();
  pm.run(*m);
  return std::string(buf.begin(), buf.end());
}

}  // namespace kiln::llvm_backend
