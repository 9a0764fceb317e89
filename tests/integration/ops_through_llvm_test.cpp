// Every operator, from workload string to an LLVM kernel, against the
// reference interpreter: a regular shape and an odd one (primes, extent 1),
// on 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "llvm_check.h"
#include "driver/op_program.h"

namespace kiln {
namespace {

const char* const kWorkloads[] = {
    "matmul:M=48,N=40,K=32",
    "matmul:M=13,N=7,K=1",
    "batch_matmul:B=2,M=16,N=24,K=8",
    "batch_matmul:B=1,M=7,N=5,K=3",
    "dense:M=16,N=32,K=24,bias=1,act=relu",
    "dense:M=7,N=13,K=5",
    "conv2d_nchw:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1",
    "conv2d_nchw:N=1,C=3,H=7,W=11,K=5,R=3,S=2,stride=2,pad=1",
    "conv2d_nchw:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=1,pad=2,dilation=2,groups=2",
    "conv2d_nhwc:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1",
    "conv2d_nhwc:N=2,C=3,H=7,W=5,K=1,R=1,S=1,stride=1,pad=0",
    "depthwise_conv2d_nchw:N=1,C=8,H=14,W=14,R=3,S=3,stride=1,pad=1",
    "depthwise_conv2d_nchw:N=1,C=3,H=7,W=13,R=3,S=3,stride=2,pad=1",
    "max_pool2d:N=1,C=8,H=14,W=14,R=2,S=2,stride=2,pad=0",
    "max_pool2d:N=1,C=3,H=7,W=7,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=8,H=14,W=14,R=3,S=3,stride=1,pad=1",
    "avg_pool2d:N=1,C=1,H=5,W=3,R=3,S=3,stride=2,pad=1",
    "softmax:M=16,N=64",
    "softmax:M=1,N=13",
    "layer_norm:M=16,N=64",
    "layer_norm:M=3,N=17",
    "add:M=16,N=32",
    "add:M=1,N=13",
    "mul:M=16,N=32",
    "mul:M=7,N=1",
    "relu:M=16,N=32",
    "relu:M=13,N=3",
    "reduce_sum:M=16,N=64",
    "reduce_sum:M=1,N=1",
    "matmul:M=16,N=16,K=16,dtype=float16",
    "matmul:M=8,N=8,K=8,dtype=int32",
};

class OpsThroughLLVM : public ::testing::TestWithParam<const char*> {};

TEST_P(OpsThroughLLVM, MatchesInterpreter) {
  Target target = Target::parse("llvm -num-cores=2");
  testing::expect_llvm_matches_interpreter(prepare_op(GetParam(), target), target, GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpsThroughLLVM, ::testing::ValuesIn(kWorkloads));

TEST(OpSession, DetectsAWrongAnswer) {
  // The comparison the tuner and --check rely on must notice a difference.
  OpProgram p = prepare_op("add:M=4,N=4", Target::parse("llvm"));
  std::vector<NDArray> args = make_arguments(p.func, 1);
  std::vector<NDArray> want = reference_outputs(p.func, args);
  EXPECT_GT(max_relative_error(args.back(), want.back()), 1e-3);  // output still zero
  args.back().set(0, want.back().get(0));
  want.back().set(5, std::nan(""));
  EXPECT_EQ(max_relative_error(args.back(), want.back()), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace kiln
