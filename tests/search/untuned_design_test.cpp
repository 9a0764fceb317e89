// The program an untuned task runs: before, the compute definition as
// written (one thread, no vectors); after, the first design the search
// would measure. It computes the same thing, runs in parallel and in
// vectors, and is the same program every time.
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/workload.h"
#include "search/untuned_design.h"
#include "support/kernel_check.h"
#include "tir/schedule/instruction.h"

namespace kiln::search {
namespace {

const Target& avx512() {
  static const Target t = Target::parse("llvm -mcpu=znver4 -num-cores=2");
  return t;
}

bool has(const Trace& t, const InstructionKind& kind) {
  return std::any_of(t.instructions().begin(), t.instructions().end(),
                     [&](const Instruction& i) { return i.kind == &kind; });
}

class UntunedDesign : public ::testing::TestWithParam<const char*> {};

TEST_P(UntunedDesign, ComputesTheSameInParallelAndInVectors) {
  const PrimFunc f = ops::build_workload(ops::parse_workload(GetParam()));
  const std::optional<Candidate> c = untuned_design(f, avx512());
  ASSERT_TRUE(c) << "the space made no candidate";
  EXPECT_TRUE(has(c->trace, inst::parallel)) << c->trace.str();
  EXPECT_TRUE(has(c->trace, inst::vectorize)) << c->trace.str();
  testing::expect_same_results(f, c->func);
  // No measurement, no randomness between compiles: the same design again.
  EXPECT_EQ(untuned_design(f, avx512())->trace.str(), c->trace.str());
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, UntunedDesign,
    ::testing::Values("matmul:M=64,N=64,K=32", "conv2d_nchwc:N=1,C=32,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1,cb=16,kb=16",
                      "conv2d_winograd_nchwc:N=1,C=16,H=14,W=14,K=16,pad=1,cb=16,kb=16,m=2",
                      "depthwise_conv2d_nchwc:N=1,C=32,H=14,W=14,R=3,S=3,stride=2,pad=1,b=16",
                      "max_pool2d:N=1,C=32,H=16,W=16,R=3,S=3,stride=2,pad=1", "relu:M=64,N=64"));

}  // namespace
}  // namespace kiln::search
