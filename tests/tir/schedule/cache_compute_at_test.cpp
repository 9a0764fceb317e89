// cache_read, cache_write, compute_at, reverse_compute_at.
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

TEST(CacheWrite, CopyFollowsTheNest) {
  const char* w = "matmul:M=4,N=6,K=8";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  BlockRV copy = sch.cache_write(c, 0, "local");
  EXPECT_EQ(sch.block_name(copy), "C_local");
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 6), "float32"), C: T.Buffer((4, 6), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        C_local = T.alloc_buffer((4, 6), "float32", scope="local")
        for i0, i1, k in T.grid(4, 6, 8):
            with T.block("C"):
                v_i0 = T.axis.spatial(4, i0)
                v_i1 = T.axis.spatial(6, i1)
                v_k = T.axis.reduce(8, k)
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C_local[v_i0, v_i1])
                with T.init():
                    C_local[v_i0, v_i1] = T.float32(0)
                C_local[v_i0, v_i1] = C_local[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
        for ax0, ax1 in T.grid(4, 6):
            with T.block("C_local"):
                v0 = T.axis.spatial(4, ax0)
                v1 = T.axis.spatial(6, ax1)
                T.reads(C_local[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_local[v0, v1]
)");
  expect_valid_schedule(sch, workload_func(w));
}

TEST(CacheWrite, ReverseComputeAtATile) {
  const char* w = "matmul:M=8,N=12,K=5";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto i = sch.split(loops[0], {kInfer, 4});
  auto j = sch.split(loops[1], {kInfer, 4});
  sch.reorder({i[0], j[0], loops[2], i[1], j[1]});
  BlockRV copy = sch.cache_write(c, 0, "local");
  sch.reverse_compute_at(copy, j[0]);
  std::string text = to_string(sch.func());
  EXPECT_NE(text.find("for ax0, ax1 in T.grid(4, 4):"), std::string::npos) << text;
  expect_valid_schedule(sch, workload_func(w));
}

TEST(CacheWrite, ReverseComputeAtWithPredicate) {
  const char* w = "matmul:M=10,N=7,K=3";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto i = sch.split(loops[0], {kInfer, 4});
  sch.reorder({i[0], loops[1], loops[2], i[1]});
  BlockRV copy = sch.cache_write(c, 0, "local");
  sch.reverse_compute_at(copy, loops[1]);
  expect_valid_schedule(sch, workload_func(w));
}

TEST(CacheWrite, UnderTheReductionLoopIsRefused) {
  Schedule sch = schedule_of("matmul:M=4,N=4,K=4");
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  sch.reorder({loops[2], loops[0]});
  BlockRV copy = sch.cache_write(c, 0, "local");
  try {
    sch.reverse_compute_at(copy, loops[0]);
    FAIL() << "expected DependentLoopError";
  } catch (const DependentLoopError& e) {
    EXPECT_STREQ(e.what(), "reverse_compute_at: block 'C' still reduces over loop 'k' when an iteration of loop 'i0' ends");
  }
}

TEST(CacheWrite, AfterDecomposeReductionIsRefused) {
  Schedule sch = schedule_of("matmul:M=4,N=4,K=4");
  BlockRV c = sch.get_block("C");
  sch.decompose_reduction(c, sch.get_loops(c)[2]);
  try {
    sch.cache_write(c, 0, "local");
    FAIL() << "expected NotSingleWriterError";
  } catch (const NotSingleWriterError& e) {
    EXPECT_STREQ(e.what(), "cache_write: buffer 'C' is also written by block 'C_init'");
  }
}

TEST(CacheRead, ComputeAtPacksATile) {
  const char* w = "matmul:M=8,N=12,K=6";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto j = sch.split(loops[1], {kInfer, 4});
  sch.reorder({j[0], loops[0], loops[2], j[1]});
  BlockRV b_cache = sch.cache_read(c, 1, "global");
  EXPECT_EQ(sch.block_name(b_cache), "B_global");
  sch.compute_at(b_cache, j[0]);
  std::string text = to_string(sch.func());
  EXPECT_NE(text.find("for ax0, ax1 in T.grid(6, 4):"), std::string::npos) << text;
  expect_valid_schedule(sch, workload_func(w));
}

TEST(CacheRead, Errors) {
  Schedule sch = schedule_of("matmul:M=4,N=4,K=4");
  BlockRV c = sch.get_block("C");
  EXPECT_THROW(sch.cache_read(c, 5, "local"), BadArgumentError);
  try {
    sch.cache_read(c, 0, "texture");
    FAIL() << "expected BadArgumentError";
  } catch (const BadArgumentError& e) {
    EXPECT_STREQ(e.what(), "cache_read: unknown storage scope 'texture' (expected global, local or shared)");
  }
  BlockRV a = sch.cache_read(c, 0, "local");
  auto loops = sch.get_loops(c);
  // compute_at of a producer into a loop that comes before it.
  BlockRV copy = sch.cache_write(c, 0, "local");
  EXPECT_THROW(sch.compute_at(copy, loops[0]), DependentLoopError);
  EXPECT_THROW(sch.reverse_compute_at(a, loops[0]), DependentLoopError);
}

TEST(ReverseComputeAt, UnderOneProducerBeforeTheOtherIsRefused) {
  // Attention's last step, out = pv / total, reads two producers. Under
  // pv's loop it would run before total's nest computes total (a sampled
  // schedule of attention did, and divided by what the buffer held); under
  // total's loop, after both, it may go.
  const PrimFunc f = parse_prim_func(R"(@T.prim_func
def f(A: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        pv = T.alloc_buffer((8,), "float32")
        total = T.alloc_buffer((8,), "float32")
        for i0 in range(8):
            with T.block("pv"):
                v0 = T.axis.spatial(8, i0)
                T.reads(A[v0])
                T.writes(pv[v0])
                pv[v0] = A[v0] * T.float32(2)
        for i1 in range(8):
            with T.block("total"):
                v1 = T.axis.spatial(8, i1)
                T.reads(A[v1])
                T.writes(total[v1])
                total[v1] = A[v1] + T.float32(1)
        for i2 in range(8):
            with T.block("out"):
                v2 = T.axis.spatial(8, i2)
                T.reads(pv[v2], total[v2])
                T.writes(out[v2])
                out[v2] = pv[v2] / total[v2]
)");
  Schedule sch(f, ScheduleOptions{1, /*verify_each_step=*/true});
  const BlockRV out = sch.get_block("out");
  try {
    sch.reverse_compute_at(out, sch.get_loops(sch.get_block("pv"))[0]);
    FAIL() << "expected DependentLoopError";
  } catch (const DependentLoopError& e) {
    EXPECT_STREQ(e.what(),
                 "reverse_compute_at: a statement between block 'out' and loop 'i0' writes or reads buffer 'total', "
                 "which block 'out' uses");
  }
  sch.reverse_compute_at(out, sch.get_loops(sch.get_block("total"))[0]);
  expect_ir(sch.func(), R"(@T.prim_func
def f(A: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        pv = T.alloc_buffer((8,), "float32")
        total = T.alloc_buffer((8,), "float32")
        for i0 in range(8):
            with T.block("pv"):
                v0 = T.axis.spatial(8, i0)
                T.reads(A[v0])
                T.writes(pv[v0])
                pv[v0] = A[v0] * T.float32(2)
        for i1 in range(8):
            with T.block("total"):
                v1 = T.axis.spatial(8, i1)
                T.reads(A[v1])
                T.writes(total[v1])
                total[v1] = A[v1] + T.float32(1)
            for ax0 in range(1):
                with T.block("out"):
                    v2 = T.axis.spatial(8, i1 + ax0)
                    T.reads(pv[v2], total[v2])
                    T.writes(out[v2])
                    out[v2] = pv[v2] / total[v2]
)");
}

TEST(ComputeAt, ElementwiseChain) {
  // dense with bias and relu: three stages; pull the epilogues into the
  // matmul's outer loop.
  const char* w = "dense:M=6,N=8,K=5,bias=1,act=relu";
  Schedule sch = schedule_of(w);
  std::vector<BlockRV> blocks = sch.get_child_blocks(sch.get_block("root"));
  ASSERT_GE(blocks.size(), 2u);
  auto loops = sch.get_loops(blocks[0]);
  for (size_t i = 1; i < blocks.size(); ++i) sch.reverse_compute_at(blocks[i], loops[0]);
  expect_valid_schedule(sch, workload_func(w));
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

TEST(SetScope, IntermediateStageToLocal) {
  const char* w = "softmax:M=4,N=8";
  Schedule sch = testing::schedule_of(w);
  BlockRV mx = sch.get_block("softmax_max");
  sch.set_scope(mx, 0, "local");
  const auto* root = sch.func().body().as<BlockRealizeNode>()->block.as<BlockNode>();
  EXPECT_EQ(root->alloc_buffers[0]->scope, "local");
  EXPECT_EQ(block_of(sch.block_stmt(mx, "test"))->writes[0].buffer()->scope, "local");
  // The reader sees the same buffer object.
  EXPECT_TRUE(block_of(sch.block_stmt(sch.get_block("softmax_exp"), "test"))->reads[1].buffer().same_as(
      root->alloc_buffers[0]));
  testing::expect_valid_schedule(sch, testing::workload_func(w));
}

TEST(SetScope, Errors) {
  Schedule sch = testing::schedule_of("softmax:M=4,N=8");
  try {
    sch.set_scope(sch.get_block("softmax"), 0, "local");
    FAIL() << "expected BadArgumentError";
  } catch (const BadArgumentError& e) {
    EXPECT_STREQ(e.what(), "set_scope: buffer 'softmax' is a parameter of the function");
  }
  EXPECT_THROW(sch.set_scope(sch.get_block("softmax_max"), 1, "local"), BadArgumentError);
  EXPECT_THROW(sch.set_scope(sch.get_block("softmax_max"), 0, "texture"), BadArgumentError);
}

}  // namespace
}  // namespace kiln
