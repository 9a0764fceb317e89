// Checking and optimising a generated module, shared by every output path.
#pragma once

#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::llvm_backend {

// Runs LLVM's verifier; a broken module is a code generator bug, reported as
// kiln::InternalError naming `function` and quoting the verifier.
void verify_module(const llvm::Module& m, const std::string& function);

// The new pass manager's O3 pipeline, with tm's cost model (vector widths,
// instruction costs) so that the vectorisers see the real target.
void optimize_module(llvm::Module& m, llvm::TargetMachine& tm);

}  // namespace kiln::llvm_backend
