// rfactor: a reduction split into partial results along one loop, which can
// then run in parallel or as a vector, and a write-back that combines them.
#include <gtest/gtest.h>

#include "schedule_harness.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

template <typename E>
void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    FAIL() << "expected an error: " << message;
  } catch (const E& e) {
    EXPECT_EQ(e.what(), message);
  }
}

TEST(RFactor, SumOverTheInnerSplitLoop) {
  const char* w = "reduce_sum:M=4,N=16";
  Schedule sch = schedule_of(w);
  BlockRV b = sch.get_block("reduce_sum");
  auto loops = sch.get_loops(b);
  auto k = sch.split(loops[1], {kInfer, 4});
  BlockRV rf = sch.rfactor(k[1], 1);
  EXPECT_EQ(sch.block_name(rf), "reduce_sum_rf");
  expect_ir(sch.func(), R"(@T.prim_func
def reduce_sum(A: T.Buffer((4, 16), "float32"), reduce_sum: T.Buffer((4,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        reduce_sum_rf = T.alloc_buffer((4, 4), "float32")
        for i0, k_0, k_1 in T.grid(4, 4, 4):
            with T.block("reduce_sum_rf"):
                v_i0 = T.axis.spatial(4, i0)
                v_k_0 = T.axis.reduce(4, k_0)
                v_k_1 = T.axis.spatial(4, k_1)
                T.reads(A[v_i0, v_k_0 * 4 + v_k_1])
                T.writes(reduce_sum_rf[v_i0, v_k_1])
                with T.init():
                    reduce_sum_rf[v_i0, v_k_1] = T.float32(0)
                reduce_sum_rf[v_i0, v_k_1] = reduce_sum_rf[v_i0, v_k_1] + A[v_i0, v_k_0 * 4 + v_k_1]
        for i0_1, k_1_1 in T.grid(4, 4):
            with T.block("reduce_sum"):
                v_i0_1 = T.axis.spatial(4, i0_1)
                v_k_1_1 = T.axis.reduce(4, k_1_1)
                T.reads(reduce_sum_rf[v_i0_1, v_k_1_1])
                T.writes(reduce_sum[v_i0_1])
                with T.init():
                    reduce_sum[v_i0_1] = T.float32(0)
                reduce_sum[v_i0_1] = reduce_sum[v_i0_1] + reduce_sum_rf[v_i0_1, v_k_1_1]
)");
  // The factored loop now feeds a spatial axis: it vectorizes.
  sch.vectorize(k[1]);
  expect_valid_schedule(sch, workload_func(w));
}

TEST(RFactor, MatmulOuterSplitLoopInParallel) {
  // The usual use: the outer part of k becomes an outer parallel loop of
  // partial products, each thread owning its slice of C_rf.
  const char* w = "matmul:M=5,N=6,K=12";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto k = sch.split(loops[2], {2, kInfer});
  BlockRV rf = sch.rfactor(k[0], 0);
  sch.reorder({k[0], loops[0], loops[1], k[1]});
  sch.parallel(k[0]);
  auto rf_loops = sch.get_loops(rf);
  ASSERT_EQ(rf_loops.size(), 4u);
  EXPECT_TRUE(sch.loop_var(rf_loops[0]).same_as(sch.loop_var(k[0])));
  std::string text = to_string(sch.func());
  EXPECT_NE(text.find("C_rf = T.alloc_buffer((2, 5, 6), \"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("for k_0 in T.parallel(2):"), std::string::npos) << text;
  // The write-back can be parallel over its spatial loops too.
  sch.parallel(sch.get_loops(c)[0]);
  expect_valid_schedule(sch, workload_func(w));
}

TEST(RFactor, MaxReductionOfSoftmax) {
  // softmax_max folds with max: the partial maxima start at -inf, and the
  // later stages read the written-back row maxima as before.
  const char* w = "softmax:M=3,N=8";
  Schedule sch = schedule_of(w);
  BlockRV mx = sch.get_block("softmax_max");
  auto loops = sch.get_loops(mx);
  BlockRV rf = sch.rfactor(loops[1], 0);
  sch.vectorize(sch.get_loops(rf)[1]);
  std::string text = to_string(sch.func());
  EXPECT_NE(text.find("softmax_max_rf[v_k, v_i0] = T.float32(\"-inf\")"), std::string::npos) << text;
  EXPECT_NE(text.find("T.max(softmax_max[v_i0_1], softmax_max_rf[v_k_1, v_i0_1])"), std::string::npos) << text;
  expect_valid_schedule(sch, workload_func(w));
}

TEST(RFactor, ThenDecomposeTheRfBlock) {
  const char* w = "reduce_sum:M=6,N=10";
  Schedule sch = schedule_of(w);
  BlockRV b = sch.get_block("reduce_sum");
  auto loops = sch.get_loops(b);
  auto k = sch.split(loops[1], {kInfer, 5});
  BlockRV rf = sch.rfactor(k[0], 0);
  sch.reorder({k[0], loops[0], k[1]});
  sch.parallel(k[0]);
  sch.decompose_reduction(rf, k[1]);
  expect_valid_schedule(sch, workload_func(w));
}

TEST(RFactor, ProductWithTheAccumulatorOnTheRight) {
  // A multiply reduction written `B = A * B`: the partial products start at
  // 1, the original init (2) still counts once, in the write-back.
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def f(A: T.Buffer((3, 8), "float32"), B: T.Buffer((3,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i, k in T.grid(3, 8):
            with T.block("B"):
                vi = T.axis.spatial(3, i)
                vk = T.axis.reduce(8, k)
                T.reads(B[vi], A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(2)
                B[vi] = A[vi, vk] * B[vi]
)");
  Schedule sch(f, ScheduleOptions{1, true});
  auto loops = sch.get_loops(sch.get_block("B"));
  auto k = sch.split(loops[1], {2, 4});
  BlockRV rf = sch.rfactor(k[0], 0);
  sch.parallel(k[0]);
  std::string text = to_string(sch.func());
  EXPECT_NE(text.find("B_rf[v_k_0, vi] = T.float32(1)"), std::string::npos) << text;
  EXPECT_NE(text.find("B[vi_1] = T.float32(2)"), std::string::npos) << text;
  EXPECT_EQ(sch.block_name(rf), "B_rf");
  expect_valid_schedule(sch, f);
}

TEST(RFactor, NotAReductionBlock) {
  Schedule sch = schedule_of("softmax:M=4,N=8");
  auto loops = sch.get_loops(sch.get_block("softmax_exp"));
  expect_error<NotReductionBlockError>(
      [&] { sch.rfactor(loops[1], 0); },
      "rfactor: block 'softmax_exp' is not a reduction: it needs an init and an update of one buffer element");
}

TEST(RFactor, UnknownCombiner) {
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i, k in T.grid(4, 8):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                vk = T.axis.reduce(8, k)
                T.reads(B[vi], A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] - A[vi, vk]
)");
  Schedule sch(f, ScheduleOptions{1, true});
  auto loops = sch.get_loops(sch.get_block("B"));
  expect_error<UnknownCombinerError>(
      [&] { sch.rfactor(loops[1], 0); },
      "rfactor: the update of block 'B' is not `B[...] = B[...] <op> value` with op add, multiply, min or max");
}

TEST(RFactor, ATransposedStoreIsNotAReduction) {
  // C[vi, vj] = C[vj, vi] + ...: the update reads another element than it
  // writes, so partial results along k could not be combined into
  // C[vi, vj]. rfactor refuses it and the function stays as it was.
  const char* before = R"(@T.prim_func
def f(A: T.Buffer((4, 4, 8), "float32"), C: T.Buffer((4, 4), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i, j, k in T.grid(4, 4, 8):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                vj = T.axis.spatial(4, j)
                vk = T.axis.reduce(8, k)
                T.reads(C[vj, vi], A[vi, vj, vk])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vj, vi] + A[vi, vj, vk]
)";
  Schedule sch(parse_prim_func(before), ScheduleOptions{1, true});
  auto loops = sch.get_loops(sch.get_block("C"));
  expect_error<UnknownCombinerError>(
      [&] { sch.rfactor(loops[2], 0); },
      "rfactor: the update of block 'C' is not `C[...] = C[...] <op> value` with op add, multiply, min or max");
  expect_ir(sch.func(), before);
}

TEST(RFactor, LoopFeedsASpatialAxis) {
  Schedule sch = schedule_of("reduce_sum:M=4,N=8");
  BlockRV b = sch.get_block("reduce_sum");
  auto loops = sch.get_loops(b);
  expect_error<NotReductionLoopError>([&] { sch.rfactor(loops[0], 0); },
                                      "rfactor: loop 'i0' feeds spatial axis 'v_i0' of block 'reduce_sum'");
  LoopRV fused = sch.fuse({loops[0], loops[1]});
  expect_error<NotReductionLoopError>([&] { sch.rfactor(fused, 0); },
                                      "rfactor: loop 'i0_k_fused' feeds spatial axis 'v_i0' of block 'reduce_sum'");
}

TEST(RFactor, OverAUnitLoopThePartialResultsHaveADimensionOfOne) {
  // A split of 16 into [16, 1]: the piece of 1 feeds nothing once the
  // bindings are simplified, and factoring over it keeps the whole
  // reduction in the rf block, over a partial-result dimension of 1.
  const char* w = "reduce_sum:M=4,N=16";
  Schedule sch = schedule_of(w);
  auto loops = sch.get_loops(sch.get_block("reduce_sum"));
  auto k = sch.split(loops[1], {16, 1});
  sch.rfactor(k[1], 1);
  const std::string text = to_string(sch.func());
  EXPECT_NE(text.find("reduce_sum_rf = T.alloc_buffer((4, 1), \"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("v_k_1 = T.axis.spatial(1, k_1)"), std::string::npos) << text;
  expect_valid_schedule(sch, workload_func(w));
}

TEST(RFactor, FactorAxisOutOfRange) {
  Schedule sch = schedule_of("reduce_sum:M=4,N=8");
  auto loops = sch.get_loops(sch.get_block("reduce_sum"));
  const std::string m = "rfactor: factor_axis 2 is outside [0, 1] for buffer 'reduce_sum' of block 'reduce_sum'";
  expect_error<BadArgumentError>([&] { sch.rfactor(loops[1], 2); }, m);
  EXPECT_THROW(sch.rfactor(loops[1], -1), BadArgumentError);
}

TEST(RFactor, OtherBlocksInTheNest) {
  Schedule sch = schedule_of("matmul:M=4,N=6,K=8");
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  sch.compute_at(sch.cache_read(c, 0, "global"), loops[0]);
  expect_error<NotSingleBlockError>([&] { sch.rfactor(loops[0], 0); },
                                    "rfactor: loop 'i0' holds several blocks: 'A_global', 'C'");
  expect_error<NotSingleBlockError>([&] { sch.rfactor(loops[2], 0); },
                                    "rfactor: the loop nest of block 'C' also holds 'A_global'");
}

TEST(RFactor, PredicateOnAReductionLoop) {
  Schedule sch = schedule_of("reduce_sum:M=4,N=10");
  auto loops = sch.get_loops(sch.get_block("reduce_sum"));
  auto k = sch.split(loops[1], {kInfer, 4});  // 12 > 10: a predicate on k_0, k_1
  expect_error<LoopShapeError>(
      [&] { sch.rfactor(k[1], 0); },
      "rfactor: the predicate of block 'reduce_sum' involves loop 'k_0', which feeds no spatial axis");
}

}  // namespace
}  // namespace kiln
