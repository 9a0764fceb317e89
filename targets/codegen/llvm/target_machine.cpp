#include "targets/codegen/llvm/target_machine.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include "core/error.h"
#include "targets/codegen/llvm/llvm_init.h"

namespace kiln::llvm_backend {

std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& t) {
  if (!t.is_cpu()) KILN_USER_ERROR() << "the llvm back end cannot compile for target kind " << t.kind();
  ensure_llvm_initialized();
  std::string err;
  const llvm::Target* lt = llvm::TargetRegistry::lookupTarget(t.mtriple(), err);
  KILN_ICHECK(lt) << "no llvm target for " << t.mtriple() << ": " << err;
  llvm::TargetOptions opts;
  std::unique_ptr<llvm::TargetMachine> tm(lt->createTargetMachine(
      t.mtriple(), t.mcpu(), t.llvm_features(), opts, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  KILN_ICHECK(tm) << "llvm could not create a target machine for " << t.str();
  return tm;
}

}  // namespace kiln::llvm_backend
