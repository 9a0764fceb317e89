// Seeds from similar workloads: a design tuned for one shape, carried over
// to another shape of the same operator, replays there and computes the
// right thing; its tiles are re-derived innermost first.
#include <gtest/gtest.h>

#include "ops/workload.h"
#include "search/sample.h"
#include "search/space.h"
#include "search/transfer.h"
#include "support/kernel_check.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

SpaceParams avx2() { return SpaceParams::for_target(Target::parse("llvm -mcpu=haswell -num-cores=2")); }

std::vector<std::vector<int64_t>> tile_decisions(const Trace& t) {
  std::vector<std::vector<int64_t>> out;
  for (const Instruction& i : t.instructions())
    if (is_tile_sample(i)) out.push_back(*tile_factors(i));
  return out;
}

TEST(Transfer, ATileKeepsItsInnerFactorsWhereTheyDivideTheNewExtent) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(fit_tile({2, 2, 1, 14}, 56), (V{2, 2, 1, 14})) << "the same extent: unchanged";
  EXPECT_EQ(fit_tile({2, 2, 1, 14}, 28), (V{1, 2, 1, 14}));
  EXPECT_EQ(fit_tile({2, 2, 1, 14}, 7), (V{1, 1, 1, 7}));
  EXPECT_EQ(fit_tile({4, 1, 16}, 48), (V{3, 1, 16}));
  EXPECT_EQ(fit_tile({1, 64}, 96), (V{3, 32}));
  EXPECT_EQ(fit_tile({8, 8}, 1), (V{1, 1}));
}

TEST(Transfer, AConvDesignCarriesOverToAnotherLayer) {
  PrimFunc from = workload("conv2d_nchw:N=1,C=4,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1");
  PrimFunc to = workload("conv2d_nchw:N=1,C=8,H=4,W=4,K=16,R=3,S=3,stride=1,pad=1");
  std::vector<Trace> sketches = design_space(from, avx2());
  int carried = 0;
  for (size_t s = 0; s < sketches.size(); ++s) {
    std::optional<Candidate> c = sample_candidate(from, sketches[s], 7 + s);
    ASSERT_TRUE(c) << "sketch " << s;
    // Before: the design does not replay on the other layer as it stands
    // (no tile of 8 output rows multiplies to 4); after: it does, and is correct.
    Schedule as_is(to);
    EXPECT_THROW(c->trace.without_postproc().apply(as_is), TraceError);
    std::optional<Trace> moved = transfer_design(to, c->trace);
    ASSERT_TRUE(moved) << c->trace.str();
    SampleFailure why;
    std::optional<Candidate> there = replay_candidate(to, *moved, &why);
    ASSERT_TRUE(there) << why.name() << ": " << why.message;
    testing::expect_same_results(to, there->func);
    // Each tile multiplies to its new extent with the innermost factor kept
    // where it divides it.
    std::vector<std::vector<int64_t>> before = tile_decisions(c->trace.without_postproc());
    std::vector<std::vector<int64_t>> after = tile_decisions(*moved);
    ASSERT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size(); ++i) {
      const int64_t inner = before[i].back(), now = after[i].back();
      EXPECT_EQ(inner % now, 0) << "tile " << i << ": " << ::testing::PrintToString(before[i]) << " -> "
                               << ::testing::PrintToString(after[i]);
    }
    ++carried;
  }
  EXPECT_EQ(carried, static_cast<int>(sketches.size()));
}

TEST(Transfer, APartialTileKeepsItsInnerFactorsAndCoversTheNewExtent) {
  // A 6-row register tile tuned on 22 rows (4 x 6) moved to 40 rows: 7 x 6.
  PrimFunc from = workload("matmul:M=22,N=32,K=8");
  PrimFunc to = workload("matmul:M=40,N=32,K=8");
  Trace sketch = design_space(from, avx2())[1].without_postproc();
  std::vector<size_t> tiles;
  for (size_t n = 0; n < sketch.size(); ++n)
    if (is_tile_sample(sketch.instructions()[n])) tiles.push_back(n);
  ASSERT_EQ(tiles.size(), 3u);
  std::optional<Candidate> c = replay_candidate(
      from, sketch.with_decision(tiles[0], TileDecision{{4, 1, 1, 6}})
                .with_decision(tiles[1], TileDecision{{2, 1, 1, 16}})
                .with_decision(tiles[2], TileDecision{{2, 4}}));
  ASSERT_TRUE(c);
  std::optional<Trace> moved = transfer_design(to, c->trace);
  ASSERT_TRUE(moved);
  std::optional<Candidate> there = replay_candidate(to, *moved);
  ASSERT_TRUE(there);
  EXPECT_EQ(*tile_factors(there->trace.instructions()[tiles[0]]), (std::vector<int64_t>{7, 1, 1, 6}));
  testing::expect_same_results(to, there->func);
}

TEST(Transfer, ATiledExtentIsTheLoopsNotTheDecisions) {
  // 22 rows drawn as 2 tiles of 3 x 6 = 36 rows: the loop is still 22 long.
  PrimFunc f = workload("matmul:M=22,N=32,K=8");
  Trace sketch = design_space(f, avx2())[1].without_postproc();
  size_t rows = 0;
  while (!is_tile_sample(sketch.instructions()[rows])) ++rows;
  Trace drawn = sketch.with_decision(rows, TileDecision{{2, 3, 1, 6}});
  EXPECT_EQ(tile_product(*tile_factors(drawn.instructions()[rows])), 36);
  EXPECT_EQ(tiled_extent(f, drawn, rows), std::optional<int64_t>(22));
  EXPECT_EQ(tiled_extent(f, drawn, 0), std::nullopt) << "not a tile sample";
}

TEST(Transfer, ADesignOfAnotherStructureCarriesNothing) {
  // dense + bias + relu has blocks that matmul does not: its trace does not apply.
  PrimFunc dense = workload("dense:M=8,N=16,K=8,bias=1,act=relu");
  std::optional<Candidate> c = sample_candidate(dense, design_space(dense, avx2())[1], 3);
  ASSERT_TRUE(c);
  EXPECT_FALSE(transfer_design(workload("matmul:M=8,N=16,K=8"), c->trace));
}

TEST(Transfer, ASiblingsDesignTakesTheSketchWithTheSameStepsAndItsDecisions) {
  // dense + bias and dense + bias + relu: the same loops, but the second
  // inlines the bias into the relu, so its blocks are named differently.
  PrimFunc from = workload("dense:M=8,N=16,K=8,bias=1");
  PrimFunc to = workload("dense:M=8,N=16,K=8,bias=1,act=relu");
  std::vector<Trace> sketches = design_space(from, avx2()), theirs = design_space(to, avx2());
  int adopted = 0;
  for (size_t s = 0; s < sketches.size(); ++s) {
    std::optional<Candidate> c = sample_candidate(from, sketches[s], 11 + s);
    ASSERT_TRUE(c) << "sketch " << s;
    std::optional<Trace> moved = adopt_decisions(theirs, c->trace);
    if (!moved) continue;
    ++adopted;
    SampleFailure why;
    std::optional<Candidate> there = replay_candidate(to, *moved, &why);
    ASSERT_TRUE(there) << why.name() << ": " << why.message;
    testing::expect_same_results(to, there->func);
    EXPECT_EQ(tile_decisions(*moved), tile_decisions(c->trace.without_postproc()));
  }
  EXPECT_GT(adopted, 0);
  // A design adopted by its own workload's sketches is itself.
  std::optional<Candidate> c = sample_candidate(from, sketches.back(), 5);
  ASSERT_TRUE(c);
  std::optional<Trace> same = adopt_decisions(sketches, c->trace);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->fingerprint(), c->trace.without_postproc().fingerprint());
}

TEST(Transfer, SiblingsShareTheirAnchorAndTheMostAlikeComesFirst) {
  EXPECT_EQ(anchor_op("kiln.ConvNCHWc+Add+Relu"), "kiln.ConvNCHWc");
  EXPECT_EQ(anchor_op("matmul"), "matmul");
  EXPECT_EQ(shape_difference("f(float32[1, 8], float32[8, 8]) -> float32[1, 8]",
                             "g(float32[1, 8], float32[8, 8], float32[1, 8]) -> float32[1, 8]"),
            1);
  EXPECT_EQ(shape_difference("matmul:M=8", "matmul:M=8"), 0);
  EXPECT_EQ(shape_difference("matmul:M=8", "matmul:M=16"), 1);
  auto entry = [](std::string key, std::string op, std::string shape, double flops) {
    return tuning::WorkloadEntry{std::move(key), "", std::move(op), std::move(shape), flops};
  };
  const tuning::WorkloadEntry me =
      entry("add14", "Conv+Add+Relu", "(f[1, 16, 14], f[16, 16, 3], f[1, 16, 14]) -> f[1, 16, 14]", 100);
  std::vector<tuning::WorkloadEntry> all = {
      entry("relu28", "Conv+Relu", "(f[1, 8, 28], f[8, 8, 3]) -> f[1, 8, 28]", 100),
      entry("pool", "MaxPool", "(f[1, 16, 14]) -> f[1, 16, 7]", 100),
      entry("relu14s2", "Conv+Relu", "(f[1, 16, 14], f[32, 16, 3]) -> f[1, 32, 7]", 50),
      entry("relu14", "Conv+Relu", "(f[1, 16, 14], f[16, 16, 3]) -> f[1, 16, 14]", 100),
      me,
  };
  std::vector<std::string> order;
  for (const tuning::WorkloadEntry& w : similar_workloads(all, me)) order.push_back(w.key);
  EXPECT_EQ(order, (std::vector<std::string>{"relu14", "relu28", "relu14s2"}))
      << "the same FLOPs and shapes first; no other anchor, not itself";
}

}  // namespace
}  // namespace kiln::search
