#include "support/faulty_artifacts.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/file.h"
#include "targets/codegen/llvm/codegen.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/codegen/llvm/linker.h"
#include "targets/codegen/llvm/target_machine.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "tir/analysis/workload_key.h"
#include "tir/functor.h"

namespace kiln::testing {
namespace {

std::string fault_body(Fault fault) {
  switch (fault) {
    case Fault::kSegfault: return "  store volatile i32 1, ptr null\n  ret i32 0\n";
    case Fault::kAbort: return "  call void @abort()\n  unreachable\n";
    case Fault::kIllegal: return "  call void @llvm.trap()\n  unreachable\n";
    case Fault::kHang:
      return "  %slot = alloca i32\n  br label %spin\nspin:\n  store volatile i32 0, ptr %slot\n  br label %spin\n";
  }
  return "";
}

// Stores to the output buffer write value + 1.
class OffByOne : public StmtMutator {
 public:
  explicit OffByOne(const Buffer& out) : out_(out) {}
  Stmt visit_BufferStore(const BufferStoreNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::visit_BufferStore(op, self);
    const auto* store = s.as<BufferStoreNode>();
    if (!store->buffer.same_as(out_)) return s;
    Expr one = make_const(store->value.dtype(), 1);
    return buffer_store(store->buffer, store->value + one, store->indices);
  }

 private:
  Buffer out_;
};

}  // namespace

Artifact faulty_artifact(const PrimFunc& f, const Target& target, Fault fault) {
  const std::string name = f.name();
  const std::string sig = llvm_backend::kernel_signature(lower(f, target));
  std::ostringstream ir;
  ir << "@" << name << "__kiln_signature = constant [" << sig.size() + 1 << " x i8] c\"" << sig << "\\00\"\n"
     << "declare void @abort()\n"
     << "declare void @llvm.trap()\n"
     << "define i32 @" << name << "(ptr %args, ptr %rt) {\nentry:\n"
     << fault_body(fault) << "}\n";

  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ir.str(), diag, ctx);
  if (!m) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("faulty", os);
    throw InternalError("bad test IR: " + os.str() + "\n" + ir.str());
  }
  auto tm = llvm_backend::create_target_machine(target);
  m->setTargetTriple(tm->getTargetTriple().str());
  m->setDataLayout(tm->createDataLayout());

  llvm::SmallVector<char, 0> obj;
  llvm::raw_svector_ostream os(obj);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    throw InternalError("cannot emit an object file");
  pm.run(*m);

  std::string base = (std::filesystem::temp_directory_path() / ("kiln-faulty-" + std::to_string(getpid()))).string();
  {
    std::ofstream out(base + ".o", std::ios::binary);
    out.write(obj.data(), static_cast<std::streamsize>(obj.size()));
  }
  llvm_backend::link_shared_library({base + ".o"}, base + ".so", llvm_backend::process_triple());
  Artifact a{"shared_library", read_file(base + ".so"), name, target.str()};
  std::filesystem::remove(base + ".o");
  std::filesystem::remove(base + ".so");
  return a;
}

Artifact wrong_answer_artifact(const PrimFunc& f, const Target& target) {
  PrimFunc wrong = f.with_body(OffByOne(f.params().back()).mutate(f.body()));
  return build_artifact(lower(wrong, target), target);
}

Artifact default_artifact(const PrimFunc& f, const Target& target) {
  return build_artifact(lower(default_program(f, target), target), target);
}

rpc::MeasureInput candidate(uint64_t id, const PrimFunc& f, Artifact a) {
  return {id, std::move(a), arg_specs(f), workload_key(f), check_tolerance(f)};
}

rpc::ReferenceProgram reference(const PrimFunc& f, const Target& target) {
  return {workload_key(f), default_artifact(f, target)};
}

}  // namespace kiln::testing
