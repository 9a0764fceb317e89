// decompose_reduction: the init leaves the reduction block.
#include <gtest/gtest.h>

#include "schedule_harness.h"
#include "tir/printer.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

TEST(DecomposeReduction, AtTheReductionLoop) {
  const char* w = "matmul:M=4,N=6,K=8";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  BlockRV init = sch.decompose_reduction(c, loops[2]);
  EXPECT_EQ(sch.block_name(init), "C_init");
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 6), "float32"), C: T.Buffer((4, 6), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0, i1 in T.grid(4, 6):
            with T.block("C_init"):
                v_i0_init = T.axis.spatial(4, i0)
                v_i1_init = T.axis.spatial(6, i1)
                T.reads()
                T.writes(C[v_i0_init, v_i1_init])
                C[v_i0_init, v_i1_init] = T.float32(0)
            for k in range(8):
                with T.block("C"):
                    v_i0 = T.axis.spatial(4, i0)
                    v_i1 = T.axis.spatial(6, i1)
                    v_k = T.axis.reduce(8, k)
                    T.reads(C[v_i0, v_i1], A[v_i0, v_k], B[v_k, v_i1])
                    T.writes(C[v_i0, v_i1])
                    C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  expect_valid_schedule(sch, workload_func(w));
}

TEST(DecomposeReduction, AboveTiledSpatialLoops) {
  // The init copies the spatial loops below the chosen loop, keeping their
  // kinds, and leaves out the reduction loops between them.
  const char* w = "matmul:M=10,N=20,K=6";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto i = sch.split(loops[0], {kInfer, 4});
  auto j = sch.split(loops[1], {kInfer, 8});
  sch.reorder({i[0], j[0], loops[2], i[1], j[1]});
  sch.vectorize(j[1]);
  sch.decompose_reduction(c, loops[2]);
  Stmt init = sch.block_stmt(sch.get_block("C_init"), "test");
  EXPECT_NE(to_string(sch.func()).find("for i1_1_init in T.vectorized(8):"), std::string::npos) << sch.func();
  expect_valid_schedule(sch, workload_func(w));
}

TEST(DecomposeReduction, Errors) {
  Schedule sch = schedule_of("softmax:M=4,N=8");
  BlockRV exp = sch.get_block("softmax_exp");
  auto loops = sch.get_loops(exp);
  EXPECT_THROW(sch.decompose_reduction(exp, loops[0]), BadArgumentError);  // no init
  BlockRV mx = sch.get_block("softmax_max");
  try {
    sch.decompose_reduction(mx, loops[0]);
    FAIL() << "expected NotFoundError";
  } catch (const NotFoundError& e) {
    EXPECT_STREQ(e.what(), "decompose_reduction: loop 'i0' is not above block 'softmax_max'");
  }
  auto mloops = sch.get_loops(mx);
  try {
    auto k = sch.split(mloops[1], {2, 4});
    sch.decompose_reduction(mx, k[1]);
    FAIL() << "expected DependentLoopError";
  } catch (const DependentLoopError& e) {
    EXPECT_STREQ(e.what(),
                 "decompose_reduction: loop 'k_0' above loop 'k_1' feeds reduction axis 'v_k' of block 'softmax_max'");
  }
  mloops = sch.get_loops(mx);
  LoopRV fused = sch.fuse(mloops);
  EXPECT_THROW(sch.decompose_reduction(mx, fused), LoopShapeError);
}

}  // namespace
}  // namespace kiln
