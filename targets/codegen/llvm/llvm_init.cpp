#include "targets/codegen/llvm/llvm_init.h"

#include <llvm/Support/CommandLine.h>
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
    // The machine scheduler's dependence graph grows with the square of a
    // block's memory operations until it reaches this many, then trades
    // precision for time. Unrolled tiles make blocks of thousands; at LLVM's
    // 1000 a conv2d candidate took 2.9 s to build, at 100 it takes 1.8 s
    // and runs as fast (docs/targets.md, "Compile time").
    const char* argv[] = {"kiln", "-dag-maps-huge-region=100"};
    llvm::cl::ParseCommandLineOptions(2, argv);
  });
}

}  // namespace kiln::llvm_backend
