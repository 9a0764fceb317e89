// Postprocessing (search/postproc.h) on schedules built by hand: which
// loops it makes parallel.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/printer.h"
#include "ops/workload.h"
#include "search/block_info.h"
#include "search/postproc.h"
#include "search/rules/rules.h"
#include "tir/functor.h"
#include "tir/printer.h"
#include "tir/schedule/locate.h"
#include "support/kernel_check.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

// The outermost loop of the function's root block.
const ForNode* outermost_loop(const PrimFunc& f) {
  const auto* root = f.body().as<BlockRealizeNode>()->block.as<BlockNode>();
  Stmt s = root->body;
  if (const auto* seq = s.as<SeqStmtNode>()) s = seq->seq[0];
  return s.as<ForNode>();
}

// The extents of the function's parallel loops, smallest first.
std::vector<int64_t> parallel_extents(const PrimFunc& f) {
  std::vector<int64_t> out;
  post_order_visit(f.body(), [&](const Stmt& s) {
    const auto* loop = s.as<ForNode>();
    if (loop && loop->for_kind == ForKind::kParallel) out.push_back(*as_const_int(loop->extent));
  });
  std::sort(out.begin(), out.end());
  return out;
}

// Each loop above `block`, outermost first: its extent and whether it is
// (u)nrolled, (v)ectorized, (p)arallel or (s)erial.
std::vector<std::string> loops_of(const PrimFunc& f, const std::string& block) {
  std::vector<std::string> out;
  std::optional<Located> loc = locate_block(f.body(), block);
  if (!loc) return {"no block " + block};
  for (const Stmt& l : enclosing_loops(*loc)) {
    const auto* loop = l.as<ForNode>();
    const char kind = loop->for_kind == ForKind::kUnrolled     ? 'u'
                      : loop->for_kind == ForKind::kVectorized ? 'v'
                      : loop->for_kind == ForKind::kParallel   ? 'p'
                                                               : 's';
    out.push_back(std::to_string(*as_const_int(loop->extent)) + kind);
  }
  return out;
}

// Winograd's transforms pick matrix rows by tile positions
// (kUnrollAxesAnn). Before: the input transform [6, 6, N, C/cb, TH, TW, cb]
// ran its 6x6 tile positions outermost, every element choosing its row
// through a select chain; the output [N, K/kb, P, Q, kb] chose by p % 4 and
// q % 4. After: the positions are unrolled innermost, above the vector
// loop, p and q split by 4 (6 = 2 tiles of 4, the last one guarded).
TEST(Postprocess, RowPickingLoopsAreUnrolledInnermost) {
  Schedule sch(workload("conv2d_winograd_nchwc:N=1,C=4,H=6,W=6,K=4,pad=1,cb=4,kb=4,m=4"));
  BlockRV root = sch.get_block(root_block(sch.func()));
  sch.annotate(root, kParallelAnn, AnnValue(int64_t{64}));
  sch.annotate(root, kVectorizeAnn, AnnValue(int64_t{16}));
  postprocess(sch);
  EXPECT_EQ(loops_of(sch.func(), "winograd_input"),
            (std::vector<std::string>{"4p", "6u", "6u", "4v"}));  // (n, co, th, tw) fused: 1*1*2*2
  EXPECT_EQ(loops_of(sch.func(), "winograd_output"),
            (std::vector<std::string>{"4p", "4u", "4u", "4v"}));  // (n, ko, p0, q0) fused: 1*1*2*2
}

// Padding computed inside the convolution's outer tiles: the channel tile
// loop k0 is not the padding's (it reads every channel of the input), only
// the convolution's. Before: the padding, first in order, stopped the chain
// at the unit batch loop, and nothing ran in parallel. After: n, k0 and p0
// are fused into one parallel loop; each iteration pads its own rows.
TEST(Postprocess, LoopsAProducerInsideTheTilesDoesNotUseStillRunInParallel) {
  PrimFunc f = workload("conv2d_nchw:N=1,C=4,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1");
  Schedule sch(f);
  BlockRV conv = sch.get_block("conv2d_nchw");
  std::vector<LoopRV> l = sch.get_loops(conv);  // n k p q rc r s
  std::vector<LoopRV> k = sch.split(l[1], {2, 4});
  std::vector<LoopRV> p = sch.split(l[2], {2, 4});
  sch.reorder({l[0], k[0], p[0], k[1], p[1], l[3], l[4], l[5], l[6]});
  sch.compute_at(sch.get_block("pad"), p[0]);
  sch.annotate(sch.get_block(root_block(sch.func())), kParallelAnn, AnnValue(int64_t{64}));
  postprocess(sch);

  const ForNode* outer = outermost_loop(sch.func());
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->for_kind, ForKind::kParallel);
  EXPECT_TRUE(is_const_int(outer->extent, 4)) << to_string(outer->extent);  // 1 * 2 * 2
  kiln::testing::expect_same_results(f, sch.func());
}

// A unit loop does not count against the parallel extent: the padding at
// the root, (1, 4, 10, 10), runs its 4 channels in parallel though the
// limit is 2 and the batch loop comes first.
TEST(Postprocess, UnitLoopsDoNotUseUpTheParallelExtent) {
  PrimFunc f = workload("conv2d_nchw:N=1,C=4,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1");
  Schedule sch(f);
  sch.annotate(sch.get_block(root_block(sch.func())), kParallelAnn, AnnValue(int64_t{2}));
  postprocess(sch);

  const ForNode* outer = outermost_loop(sch.func());
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->for_kind, ForKind::kParallel);
  EXPECT_TRUE(is_const_int(outer->extent, 4)) << to_string(outer->extent);
  kiln::testing::expect_same_results(f, sch.func());
}

// The padding computed under the unit channel tile loop k0, whose body is
// then two nests: the padding's and the convolution's. Neither continues
// the chain of unit loops above; each is a chain of its own and runs in
// parallel (before: the padding's chain of unit loops came first, made
// nothing parallel, and kept the convolution from trying).
TEST(Postprocess, UnderAUnitLoopEachNestIsAChainOfItsOwn) {
  PrimFunc f = workload("conv2d_nchw:N=1,C=4,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1");
  Schedule sch(f);
  BlockRV conv = sch.get_block("conv2d_nchw");
  std::vector<LoopRV> l = sch.get_loops(conv);  // n k p q rc r s
  std::vector<LoopRV> k = sch.split(l[1], {1, 8});
  std::vector<LoopRV> p = sch.split(l[2], {2, 4});
  sch.reorder({l[0], k[0], p[0], k[1], p[1], l[3], l[4], l[5], l[6]});
  sch.compute_at(sch.get_block("pad"), k[0]);
  sch.annotate(sch.get_block(root_block(sch.func())), kParallelAnn, AnnValue(int64_t{64}));
  postprocess(sch);

  // The padding's channels and rows, 4 x 10, and the convolution's
  // p0 x k1 x p1 = 2 x 8 x 4, each within the limit of 64.
  EXPECT_EQ(parallel_extents(sch.func()), (std::vector<int64_t>{40, 64})) << to_string(sch.func());
  kiln::testing::expect_same_results(f, sch.func());
}

// Seven row tiles on two cores (a parallel extent of 32) leave one core idle
// an eighth of the time. Before: the chain stopped at p0 (7), the bound
// being 32. After: the column tiles q0 are fused past the bound, 7 x 7 =
// 49, since that evens the cores out; the padding's 4 channels, already
// even, stop at the bound as before.
TEST(Postprocess, OneLoopPastTheBoundWhenItEvensOutTheCores) {
  PrimFunc f = workload("conv2d_nchw:N=1,C=4,H=14,W=14,K=4,R=3,S=3,stride=1,pad=1");
  Schedule sch(f);
  BlockRV conv = sch.get_block("conv2d_nchw");
  std::vector<LoopRV> l = sch.get_loops(conv);  // n k p q rc r s
  std::vector<LoopRV> p = sch.split(l[2], {7, 2});
  std::vector<LoopRV> q = sch.split(l[3], {7, 2});
  sch.reorder({l[0], p[0], q[0], l[1], p[1], q[1], l[4], l[5], l[6]});
  sch.annotate(sch.get_block(root_block(sch.func())), kParallelAnn, AnnValue(int64_t{2 * kJobsPerCore}));
  postprocess(sch);

  EXPECT_EQ(parallel_extents(sch.func()), (std::vector<int64_t>{4, 49})) << to_string(sch.func());
  kiln::testing::expect_same_results(f, sch.func());
}

// matmul:M=rows,N=cols,K=16 with its rows and columns split by `i` and
// `j` and their tiles ordered (i0, j0, i1, j1, k), or (j0, i0, j1, i1, k)
// with `columns_first`, postprocessed for 2 cores: the name of its parallel
// loop, checked to be the outermost, and the results checked against the
// reference.
std::string parallel_loop_of_tiled_matmul(int64_t rows, int64_t cols, const std::vector<Factor>& i,
                                          const std::vector<Factor>& j, bool columns_first = false) {
  PrimFunc f = workload("matmul:M=" + std::to_string(rows) + ",N=" + std::to_string(cols) + ",K=16");
  Schedule sch(f);
  std::vector<LoopRV> l = sch.get_loops(sch.get_block("C"));  // i j k
  std::vector<LoopRV> is = sch.split(l[0], i);
  std::vector<LoopRV> js = sch.split(l[1], j);
  if (columns_first) sch.reorder({js[0], is[0], js[1], is[1], l[2]});
  else sch.reorder({is[0], js[0], is[1], js[1], l[2]});
  sch.annotate(sch.get_block(root_block(sch.func())), kParallelAnn, AnnValue(int64_t{2 * kJobsPerCore}));
  postprocess(sch);
  const ForNode* parallel = outermost_loop(sch.func());
  EXPECT_TRUE(parallel && parallel->for_kind == ForKind::kParallel) << to_string(sch.func());
  kiln::testing::expect_same_results(f, sch.func());
  return parallel ? parallel->loop_var.name() : "";
}

// The cores take a parallel loop in contiguous chunks. Before: 7 rows in
// tiles of 4 (the last one partial) fused outside 16 column tiles gave one
// core the 4 full rows and the other the 3 of the partial tile, an eighth
// of the time idle. After: the guarded row tiles are fused innermost, and
// each core's chunk holds both; with rows that tile evenly the order stays
// as the schedule had it.
TEST(Postprocess, PartialTilesAreFusedInnermostInTheParallelLoop) {
  EXPECT_EQ(parallel_loop_of_tiled_matmul(7, 256, {2, 4}, {16, 16}), "i1_0_i0_0_fused");
  EXPECT_EQ(parallel_loop_of_tiled_matmul(8, 256, {2, 4}, {16, 16}), "i0_0_i1_0_fused");
}

// The bound on the idle share depends on what the first loop splits. 14
// columns in 5 tiles of 3 outside 4 row tiles: one core 10 jobs, the other
// 8 and 4 of two thirds, 6.7% idle. Before, under the tenth every chain
// had to pass: the column tiles stayed first. After: the rows' tiles go
// first, the columns innermost (as the columns of a 3x3/2 convolution at
// 14² did outside its channel groups). The same 6.7% with the 14 rows
// first, which split C into contiguous halves as the kernels around it
// split theirs, is kept; so is 3.3% (10 column tiles, the last 2/3, over
// 2 row tiles) with the columns first.
TEST(Postprocess, AGuardedFirstLoopGoesInnermostAtATwentiethIdleUnlessItSplitsTheOutputIntoContiguousRanges) {
  EXPECT_EQ(parallel_loop_of_tiled_matmul(64, 14, {4, 16}, {5, 3}, /*columns_first=*/true), "i0_0_i1_0_fused");
  EXPECT_EQ(parallel_loop_of_tiled_matmul(14, 64, {5, 3}, {4, 16}), "i0_0_i1_0_fused");
  EXPECT_EQ(parallel_loop_of_tiled_matmul(32, 29, {2, 16}, {10, 3}, /*columns_first=*/true), "i1_0_i0_0_fused");
}

// Before: 16 rows in 6 tiles of 3 (the last holding 1) made the parallel
// loop alone, the next loop's 14 column tiles taking it past the bound of
// 32 without evening anything out (6 jobs are even on 2 cores), so one core
// ran 9 rows and the other 7. After: the column tiles are fused too, past
// the bound, and the row tiles go innermost, so each core runs 7 column
// tiles of every row tile. Where the rows tile evenly (18), the chain
// stops at the bound as before.
TEST(Postprocess, AChainItsPartialTileLeavesIdleTakesTheNextLoopPastTheBound) {
  EXPECT_EQ(parallel_loop_of_tiled_matmul(16, 56, {6, 3}, {14, 4}), "i1_0_i0_0_fused");
  EXPECT_EQ(parallel_loop_of_tiled_matmul(18, 56, {6, 3}, {14, 4}), "i0_0");
}

// Vectorized only where the stores are contiguous. Before: matmul's loops
// ordered (j, k, i) had their innermost i vectorized, a scatter down a
// column of C (stride 8), which LLVM scalarizes. After: it stays serial;
// in the order (i, k, j) the row j is vectorized as before.
TEST(Postprocess, OnlyALoopAlongWhichTheStoresAreContiguousIsVectorized) {
  for (bool down_a_column : {true, false}) {
    PrimFunc f = workload("matmul:M=8,N=8,K=8");
    Schedule sch(f);
    std::vector<LoopRV> l = sch.get_loops(sch.get_block("C"));  // i j k
    sch.reorder(down_a_column ? std::vector<LoopRV>{l[1], l[2], l[0]} : std::vector<LoopRV>{l[0], l[2], l[1]});
    EXPECT_EQ(write_stride(sch.func(), "C", sch.loop_var(sch.get_loops(sch.get_block("C")).back())),
              down_a_column ? 8 : 1);
    sch.annotate(sch.get_block(root_block(sch.func())), kVectorizeAnn, AnnValue(int64_t{16}));
    postprocess(sch);
    EXPECT_EQ(loops_of(sch.func(), "C"),
              down_a_column ? (std::vector<std::string>{"8s", "8s", "8s"}) : (std::vector<std::string>{"8s", "8s", "8v"}))
        << to_string(sch.func());
    kiln::testing::expect_same_results(f, sch.func());
  }
}

// write_stride through splits and fuses: a split's inner loop steps by 1
// and its outer one by the inner extent; a fused loop drives its indices
// through a division and a remainder, which no single stride describes.
TEST(Postprocess, TheWriteStrideOfSplitAndFusedLoops) {
  Schedule sch(workload("matmul:M=8,N=8,K=8"));
  std::vector<LoopRV> l = sch.get_loops(sch.get_block("C"));  // i j k
  std::vector<LoopRV> j = sch.split(l[1], {2, 4});
  EXPECT_EQ(write_stride(sch.func(), "C", sch.loop_var(j[1])), 1);
  EXPECT_EQ(write_stride(sch.func(), "C", sch.loop_var(j[0])), 4);
  EXPECT_EQ(write_stride(sch.func(), "C", sch.loop_var(l[0])), 8);
  EXPECT_EQ(write_stride(sch.func(), "C", sch.loop_var(l[2])), 0) << "k moves no element of C";
  LoopRV fused = sch.fuse({l[0], j[0]});
  EXPECT_EQ(write_stride(sch.func(), "C", sch.loop_var(fused)), std::nullopt);
}

}  // namespace
}  // namespace kiln::search
