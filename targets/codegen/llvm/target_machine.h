// LLVM TargetMachines for a kiln Target. Each build makes its own: a
// TargetMachine is not safe to share between threads, and making one costs
// far less than the O3 pipeline that follows.
#pragma once

#include <memory>

#include "targets/target.h"

namespace llvm {
class TargetMachine;
}

namespace kiln::llvm_backend {

// Position-independent, optimising at the highest level, for t's triple, CPU
// and features. Throws kiln::Error when t is not an llvm target.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& t);

}  // namespace kiln::llvm_backend
