// parallel, vectorize, unroll, bind, annotate.
#include <gtest/gtest.h>

#include "schedule_harness.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

const char* const kMatmul = "matmul:M=12,N=20,K=4";

TEST(ForKind, ParallelVectorizeUnroll) {
  Schedule sch = schedule_of(kMatmul);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto j = sch.split(loops[1], {kInfer, 16});  // 20 = 2 * 16 with a predicate
  sch.reorder({loops[0], j[0], loops[2], j[1]});
  sch.parallel(loops[0]);
  sch.unroll(loops[2]);
  sch.vectorize(j[1]);
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((12, 4), "float32"), B: T.Buffer((4, 20), "float32"), C: T.Buffer((12, 20), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0 in T.parallel(12):
            for i1_0 in range(2):
                for k in T.unroll(4):
                    for i1_1 in T.vectorized(16):
                        with T.block("C"):
                            v_i0 = T.axis.spatial(12, i0)
                            v_i1 = T.axis.spatial(20, i1_0 * 16 + i1_1)
                            v_k = T.axis.reduce(4, k)
                            T.where(i1_0 * 16 + i1_1 < 20)
                            T.reads(A[v_i0, v_k], B[v_k, v_i1])
                            T.writes(C[v_i0, v_i1])
                            with T.init():
                                C[v_i0, v_i1] = T.float32(0)
                            C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(ForKind, ReductionLoopIsNotDataParallel) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  try {
    sch.parallel(loops[2]);
    FAIL() << "expected NotDataParallelError";
  } catch (const NotDataParallelError& e) {
    EXPECT_STREQ(e.what(), "parallel: loop 'k' is bound to reduction axis 'v_k' of block 'C'");
  }
  EXPECT_THROW(sch.vectorize(loops[2]), NotDataParallelError);
  EXPECT_THROW(sch.bind(loops[2], "threadIdx.x"), NotDataParallelError);
  // A fused loop that carries the reduction is not data parallel either.
  LoopRV f = sch.fuse({loops[1], loops[2]});
  EXPECT_THROW(sch.parallel(f), NotDataParallelError);
  sch.unroll(f);  // unrolling keeps the order: always legal
}

TEST(ForKind, Bind) {
  Schedule sch = schedule_of(kMatmul);
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.bind(loops[0], "blockIdx.x");
  sch.bind(loops[1], "threadIdx.x");
  const auto* root = sch.func().body().as<BlockRealizeNode>()->block.as<BlockNode>();
  const auto* i0 = root->body.as<ForNode>();
  ASSERT_NE(i0, nullptr);
  EXPECT_EQ(i0->for_kind, ForKind::kThreadBinding);
  EXPECT_EQ(i0->thread_tag, "blockIdx.x");
  EXPECT_EQ(i0->body.as<ForNode>()->thread_tag, "threadIdx.x");
  try {
    sch.bind(loops[0], "warp.x");
    FAIL() << "expected BadArgumentError";
  } catch (const BadArgumentError& e) {
    EXPECT_STREQ(e.what(),
                 "bind: unknown thread axis 'warp.x' (expected blockIdx.x/y/z, threadIdx.x/y/z or vthread)");
  }
  testing::expect_trace_roundtrip(sch, workload_func(kMatmul));
}

TEST(Annotate, LoopAndBlock) {
  Schedule sch = schedule_of(kMatmul);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  sch.annotate(loops[0], "pragma_auto_unroll_max_step", int64_t{16});
  sch.annotate(c, "meta_schedule.tiling_structure", std::string("SSRSRS"));
  sch.annotate(c, "meta_schedule.tiling_structure", std::string("SSR"));  // replaces
  const auto* root = sch.func().body().as<BlockRealizeNode>()->block.as<BlockNode>();
  const auto* i0 = root->body.as<ForNode>();
  EXPECT_TRUE(is_const_int(i0->annotations.at("pragma_auto_unroll_max_step"), 16));
  Stmt realize = sch.block_stmt(c, "test");
  const auto* b = realize.as<BlockRealizeNode>()->block.as<BlockNode>();
  EXPECT_EQ(b->annotations.at("meta_schedule.tiling_structure").as<StringImmNode>()->value, "SSR");
  EXPECT_THROW(sch.annotate(c, "", int64_t{1}), BadArgumentError);
  expect_valid_schedule(sch, workload_func(kMatmul));
}

TEST(Annotate, WithASampledValueTheDecisionSetsTheValue) {
  Schedule sch = schedule_of(kMatmul);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  ExprRV step = sch.sample_categorical({0, 16, 64, 512}, {0.25, 0.25, 0.25, 0.25}, 2);
  sch.annotate(loops[0], "pragma_auto_unroll_max_step", step);
  sch.annotate(c, "kiln.unroll", step);
  expect_valid_schedule(sch, workload_func(kMatmul));
  auto step_of = [](const PrimFunc& f) {
    const auto* root = f.body().as<BlockRealizeNode>()->block.as<BlockNode>();
    return *as_const_int(root->body.as<ForNode>()->annotations.at("pragma_auto_unroll_max_step"));
  };
  EXPECT_EQ(step_of(sch.func()), 64);
  // The search changes the decision; the replayed annotation follows.
  Trace t = sch.trace();
  size_t sample = 0;
  while (!t.instructions()[sample].kind->is_sampling) ++sample;
  Schedule replayed = apply_trace(t.with_decision(sample, CategoricalDecision{3}), workload_func(kMatmul));
  EXPECT_EQ(step_of(replayed.func()), 512);
}

TEST(EnterPostproc, TheTraceBeforeTheMarkerIsTheDesign) {
  Schedule sch = schedule_of(kMatmul);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  sch.enter_postproc();
  sch.parallel(loops[0]);
  expect_valid_schedule(sch, workload_func(kMatmul));
  EXPECT_EQ(sch.trace().size(), 4u);
  Trace design = sch.trace().without_postproc();
  ASSERT_EQ(design.size(), 2u);
  EXPECT_EQ(design.instructions()[1].kind->name, "get_loops");
}

}  // namespace
}  // namespace kiln
