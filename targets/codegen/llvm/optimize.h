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

// Which middle end a module goes through.
//
// kKiln, what every build uses: LLVM's O3 pipeline, with tm's cost model
// so that the vectorisers and the unroller see the real target, less two
// loop passes that cost more than they give on kiln's loop nests:
// LoopIdiomRecognize (loops into memset/memcpy calls) and
// LoopLoadElimination, up to 12 s on one attention candidate, and tuned
// models run as fast without them. The loop vectoriser, unrolling and
// IndVarSimplify stay: a tuned max pool that left its channels to LLVM's
// vectoriser ran 6x slower without it, resnet18's tuned kernels 7% slower
// without IndVarSimplify and 2x slower without unrolling. What made
// IndVarSimplify slow, hundreds of short loops in one nest, kiln unrolls
// itself (tir/transform/unroll_loop.h); what is left is its time per loop
// growing with the function around the loop, so in a function of more than
// kIndVarsMaxFunctionInsts instructions (unrolled code, hundreds of loops:
// one Winograd candidate spent 27 s of its 41 s there) it is skipped. The
// loop vectoriser and jump threading grow the same way, and together: a
// scalar 1x1 candidate of 47,792 instructions (952 loops under 784
// guards) spent 146 s in the middle end, 57 s without the vectoriser, 113 s
// without jump threading, 12.6 s without both; so in a function of more
// than kLargeFunctionInsts instructions both are skipped. The chosen
// kernels of resnet18 are under 2,300 instructions when it runs, the best
// records of every ResNet layer under 10,200 before the middle end.
// docs/measurement.md, "Build time", has the measurements.
// kO3: LLVM's own O3, kept to measure against (bench/build_main.cpp).
enum class Pipeline { kKiln, kO3 };

inline constexpr unsigned kIndVarsMaxFunctionInsts = 8192;
inline constexpr unsigned kLargeFunctionInsts = 16384;

void optimize_module(llvm::Module& m, llvm::TargetMachine& tm, Pipeline pipeline = Pipeline::kKiln);

}  // namespace kiln::llvm_backend
