#include "targets/codegen/llvm/llvm_init.h"

#include <llvm/Support/TargetSelect.h>

#include <mutex>

namespace kiln::llvm_backend {

void ensure_llvm_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

}  // namespace kiln::llvm_backend
