// split, fuse, reorder: expected IR, numerical equality, trace replay, and
// one test per ScheduleError.
#include <gtest/gtest.h>

#include "schedule_harness.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

const char* const kMatmul = "matmul:M=12,N=8,K=4";

TEST(Split, DividingFactorsGiveNoPredicate) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  auto parts = sch.split(loops[0], {3, kInfer, 2});
  ASSERT_EQ(parts.size(), 3u);
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((12, 4), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((12, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0_0, i0_1, i0_2, i1, k in T.grid(3, 2, 2, 8, 4):
            with T.block("C"):
                v_i0 = T.axis.spatial(12, i0_0 * 4 + i0_1 * 2 + i0_2)
                v_i1 = T.axis.spatial(8, i1)
                v_k = T.axis.reduce(4, k)
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C[v_i0, v_i1])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(Split, NonDividingFactorsAddAPredicate) {
  const char* w = "matmul:M=10,N=8,K=4";
  Schedule sch = schedule_of(w);
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.split(loops[0], {kInfer, 4});
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((10, 4), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((10, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0_0, i0_1, i1, k in T.grid(3, 4, 8, 4):
            with T.block("C"):
                v_i0 = T.axis.spatial(10, i0_0 * 4 + i0_1)
                v_i1 = T.axis.spatial(8, i1)
                v_k = T.axis.reduce(4, k)
                T.where(i0_0 * 4 + i0_1 < 10)
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C[v_i0, v_i1])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  expect_valid_schedule(sch, workload_func(w));
}

TEST(Split, ReductionLoopWithPredicate) {
  const char* w = "matmul:M=4,N=4,K=7";
  Schedule sch = schedule_of(w);
  auto loops = sch.get_loops(sch.get_block("C"));
  auto k = sch.split(loops[2], {kInfer, 3});
  sch.reorder({k[1], loops[0]});
  expect_valid_schedule(sch, workload_func(w));
}

TEST(Split, Errors) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  PrimFunc before = sch.func();
  size_t trace_size = sch.trace().size();
  EXPECT_THROW(sch.split(loops[0], {2, 3}), FactorError);          // 6 < 12
  EXPECT_THROW(sch.split(loops[0], {kInfer, kInfer}), FactorError);
  EXPECT_THROW(sch.split(loops[0], {0, kInfer}), FactorError);
  EXPECT_THROW(sch.split(loops[0], {}), FactorError);
  try {
    sch.split(loops[1], {3, 2});
    FAIL() << "expected a FactorError";
  } catch (const FactorError& e) {
    EXPECT_STREQ(e.what(), "split: factors of loop 'i1' multiply to 6, less than its extent 8");
  }
  // A failed primitive leaves the schedule as it was.
  EXPECT_TRUE(sch.func().same_as(before));
  EXPECT_EQ(sch.trace().size(), trace_size);
  // The old loop is gone once split.
  sch.split(loops[0], {kInfer, 4});
  EXPECT_THROW(sch.split(loops[0], {kInfer, 2}), NotFoundError);
}

TEST(Fuse, AdjacentLoops) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.fuse({loops[0], loops[1]});
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((12, 4), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((12, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0_i1_fused, k in T.grid(96, 4):
            with T.block("C"):
                v_i0 = T.axis.spatial(12, i0_i1_fused // 8)
                v_i1 = T.axis.spatial(8, i0_i1_fused % 8)
                v_k = T.axis.reduce(4, k)
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C[v_i0, v_i1])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(Fuse, ThreeLoopsIncludingTheReduction) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.fuse(loops);
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(Fuse, Errors) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  try {
    sch.fuse({loops[0], loops[2]});
    FAIL() << "expected LoopsNotAdjacentError";
  } catch (const LoopsNotAdjacentError& e) {
    EXPECT_STREQ(e.what(), "fuse: loop 'k' is not the only statement inside loop 'i0'");
  }
  EXPECT_THROW(sch.fuse({loops[1], loops[0]}), LoopsNotAdjacentError);
  EXPECT_THROW(sch.fuse({}), BadArgumentError);
}

TEST(Reorder, NamedLoopsSwapSlots) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.reorder({loops[2], loops[0]});
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((12, 4), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((12, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for k, i1, i0 in T.grid(4, 8, 12):
            with T.block("C"):
                v_i0 = T.axis.spatial(12, i0)
                v_i1 = T.axis.spatial(8, i1)
                v_k = T.axis.reduce(4, k)
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C[v_i0, v_i1])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(Reorder, TiledMatmul) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  auto i = sch.split(loops[0], {kInfer, 4});
  auto j = sch.split(loops[1], {kInfer, 4});
  sch.reorder({i[0], j[0], loops[2], i[1], j[1]});
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(Reorder, Errors) {
  const char* w = "softmax:M=4,N=8";
  Schedule sch = schedule_of(w);
  auto a = sch.get_loops(sch.get_block("softmax_max"));
  auto b = sch.get_loops(sch.get_block("softmax_exp"));
  try {
    sch.reorder({a[1], b[0]});
    FAIL() << "expected LoopsNotAdjacentError";
  } catch (const LoopsNotAdjacentError& e) {
    EXPECT_STREQ(e.what(), "reorder: loops 'i0' and 'k' are not nested one in the other");
  }
  EXPECT_THROW(sch.reorder({a[0], a[0]}), BadArgumentError);
}

TEST(GetBlock, UnknownNameListsTheBlocks) {
  Schedule sch = schedule_of(kMatmul);
  try {
    sch.get_block("D");
    FAIL() << "expected NotFoundError";
  } catch (const NotFoundError& e) {
    EXPECT_STREQ(e.what(), "get_block: no block named 'D' (blocks: C, root)");
  }
}

TEST(GetChildBlocks, RootHoldsEveryStage) {
  Schedule sch = schedule_of("softmax:M=4,N=8");
  std::vector<std::string> names;
  for (BlockRV b : sch.get_child_blocks(sch.get_block("root"))) names.push_back(sch.block_name(b));
  EXPECT_EQ(names, (std::vector<std::string>{"softmax_max", "softmax_exp", "softmax_sum", "softmax"}));
  auto loops = sch.get_loops(sch.get_block("softmax_exp"));
  auto under = sch.get_child_blocks(loops[0]);
  ASSERT_EQ(under.size(), 1u);
  EXPECT_EQ(sch.block_name(under[0]), "softmax_exp");
}

}  // namespace
}  // namespace kiln
