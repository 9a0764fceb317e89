// Every operator's unscheduled function, every step of its lowering and its
// lowered form print and parse back to the same program and the same text.
#include <set>

#include "ops/workload.h"
#include "round_trip.h"
#include "tir/transform/lower.h"

namespace kiln {
namespace {

using testing::prints_and_parses_back;

// One workload per op at least; odd shapes, extent 1 and non-float32 types
// reach more of the printer (casts, typed immediates).
const char* const kWorkloads[] = {
    "matmul:M=48,N=40,K=32",
    "matmul:M=13,N=7,K=1",
    "matmul:M=16,N=16,K=16,dtype=float16",
    "matmul_u8s8s32:M=5,N=32,K=12",
    "matmul_u8s7s32:M=5,N=32,K=12",
    "dense_u8s8s32:M=5,N=32,K=12",
    "matmul:M=8,N=8,K=8,dtype=int32",
    "batch_matmul:B=2,M=16,N=24,K=8",
    "dense:M=16,N=32,K=24,bias=1,act=relu",
    "dense:M=7,N=13,K=5",
    "conv2d_nchw:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1",
    "conv2d_nchw:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=1,pad=2,dilation=2,groups=2",
    "conv2d_nhwc:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1",
    "conv2d_nhwc:N=2,C=3,H=7,W=5,K=1,R=1,S=1,stride=1,pad=0",
    "depthwise_conv2d_nchw:N=1,C=3,H=7,W=13,R=3,S=3,stride=2,pad=1",
    "max_pool2d:N=1,C=3,H=7,W=7,R=3,S=3,stride=2,pad=1",
    "max_pool2d:N=1,C=2,H=6,W=6,R=2,S=2,stride=2,pad=0,dtype=int32",
    "avg_pool2d:N=1,C=1,H=5,W=3,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=1,pad=1,dtype=float64",
    "conv2d_nchwc:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=1,pad=1,cb=4,kb=8",
    "conv2d_nchwc_u8s8s32:N=1,C=8,H=6,W=6,K=16,R=3,S=3,stride=1,pad=1,cb=8,kb=16",
    "conv2d_nchwc_u8s7s32:N=1,C=8,H=6,W=6,K=16,R=3,S=3,stride=1,pad=1,cb=8,kb=16",
    "conv2d_nchw_u8s8s32:N=1,C=3,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1",
    "depthwise_conv2d_nchwc:N=1,C=8,H=9,W=9,R=3,S=3,stride=2,pad=1,b=4",
    "grouped_conv2d_nchwc:N=1,C=16,H=9,W=9,R=3,S=3,stride=1,pad=1,b=4,groups=2",
    "conv2d_winograd_nchwc:N=1,C=8,H=7,W=7,K=8,pad=1,cb=4,kb=8,m=4",
    "softmax:M=16,N=64",
    "layer_norm:M=3,N=17",
    "add:M=16,N=32",
    "add:M=3,N=5,dtype=uint8",
    "mul:M=7,N=1",
    "relu:M=13,N=3",
    "reduce_sum:M=16,N=64",
    "reduce_sum:M=3,N=5,dtype=int32",
};

class OpsRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(OpsRoundTrip, UnscheduledLoweredAndEveryPass) {
  PrimFunc f = ops::build_workload(ops::parse_workload(GetParam()));
  EXPECT_TRUE(prints_and_parses_back(f));
  LowerOptions options;
  // vectorize_loops nests sequences that the final simplify flattens.
  options.after_pass = [&](const std::string& pass, const PrimFunc& g) {
    EXPECT_TRUE(prints_and_parses_back(g, testing::Sequences::kFlattened)) << "after " << pass;
  };
  EXPECT_TRUE(prints_and_parses_back(lower(f, options)));
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpsRoundTrip, ::testing::ValuesIn(kWorkloads));

TEST(OpsRoundTrip, EveryOpHasAWorkload) {
  std::set<std::string> covered;
  for (const char* w : kWorkloads) covered.insert(ops::parse_workload(w).op);
  for (const std::string& op : ops::list_ops()) EXPECT_TRUE(covered.count(op)) << "no round-trip workload for " << op;
}


// Scheduled loops (parallel, vectorized, unrolled, a scratch buffer) reach
// the passes that unroll and vectorize, whose output has vector loads and
// stores, copies of one loop nest and Allocates.
TEST(OpsRoundTrip, ScheduledLoopsThroughEveryPass) {
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def scale(A: T.Buffer((64, 16), "float32"), B: T.Buffer((64, 16), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        A_local = T.alloc_buffer((64, 16), "float32", scope="local")
        for i in T.parallel(64):
            for j in T.vectorized(16):
                with T.block("copy"):
                    vi = T.axis.spatial(64, i)
                    vj = T.axis.spatial(16, j)
                    T.reads(A[vi, vj])
                    T.writes(A_local[vi, vj])
                    A_local[vi, vj] = A[vi, vj] * T.float32(2)
            for jo in T.unroll(2):
                for ji in range(8):
                    with T.block("out"):
                        vi_1 = T.axis.spatial(64, i)
                        vj_1 = T.axis.spatial(16, jo * 8 + ji)
                        T.reads(A_local[vi_1, vj_1])
                        T.writes(B[vi_1, vj_1])
                        B[vi_1, vj_1] = T.max(A_local[vi_1, vj_1], T.float32(0))
)");
  EXPECT_TRUE(testing::prints_and_parses_back(f));
  LowerOptions options;
  options.after_pass = [&](const std::string& pass, const PrimFunc& g) {
    EXPECT_TRUE(testing::prints_and_parses_back(g, testing::Sequences::kFlattened)) << "after " << pass;
  };
  PrimFunc lowered = lower(f, options);
  EXPECT_TRUE(testing::prints_and_parses_back(lowered));
  std::string text = to_string(lowered);
  EXPECT_NE(text.find("T.Ramp("), std::string::npos) << text;
  EXPECT_NE(text.find("T.allocate("), std::string::npos) << text;
  EXPECT_NE(text.find("T.parallel("), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln
