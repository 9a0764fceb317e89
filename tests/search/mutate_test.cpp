// Mutations, one per kind of decision: before, a trace with a decision;
// after, the same trace with that decision changed within its kind, and
// the trace still replays.
#include <gtest/gtest.h>

#include <set>

#include "ops/workload.h"
#include "search/mutate.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

// The decision of instruction i after one mutation of `t` (which has one
// sampling instruction, so that is the one mutated).
Decision mutated(const Trace& t, size_t i, RandomState& rand) {
  std::optional<Trace> m = mutate(t, rand);
  EXPECT_TRUE(m);
  return m ? m->instructions()[i].decision : Decision();
}

TEST(Mutate, APerfectTileMovesAPrimeFactorAndKeepsItsProduct) {
  PrimFunc f = workload("matmul:M=64,N=8,K=4");
  Schedule sch(f);
  sch.sample_perfect_tile(sch.get_loops(sch.get_block("C"))[0], 4, 8, std::vector<int64_t>{2, 2, 4, 4});
  RandomState rand(7);
  std::set<std::vector<int64_t>> seen;
  for (int k = 0; k < 100; ++k) {
    const std::vector<int64_t> g = std::get<TileDecision>(mutated(sch.trace(), 2, rand)).factors;
    EXPECT_NE(g, (std::vector<int64_t>{2, 2, 4, 4}));
    EXPECT_EQ(tile_product(g), 64);
    EXPECT_LE(g.back(), 8) << "max_innermost";
    seen.insert(g);
    apply_trace(sch.trace().with_decision(2, TileDecision{g}), f);  // replays
  }
  EXPECT_GE(seen.size(), 6u) << "moves between every pair of levels";
}

TEST(Mutate, APartialTileMayTakeAnotherInnermostAndStillReplays) {
  // 22 rows in tiles of 6: a mutation may give any innermost up to 16,
  // the outermost inferred, and the new tile covers 22 with less than 44.
  PrimFunc f = workload("matmul:M=22,N=8,K=4");
  Schedule sch(f);
  sch.sample_tile(sch.get_loops(sch.get_block("C"))[0], 2, 16, std::vector<int64_t>{4, 6});
  RandomState rand(3);
  std::set<int64_t> innermost;
  for (int k = 0; k < 200; ++k) {
    const TileDecision d = std::get<TileDecision>(mutated(sch.trace(), 2, rand));
    Schedule again = apply_trace(sch.trace().with_decision(2, d), f);
    const std::vector<int64_t> g = *tile_factors(again.trace().instructions()[2]);
    EXPECT_EQ(g[0], (22 + g[1] - 1) / g[1]) << "the outermost inferred covers the rows";
    innermost.insert(g[1]);
  }
  EXPECT_TRUE(innermost.count(5) || innermost.count(7) || innermost.count(9)) << "sizes that divide nothing";
}

TEST(Mutate, ACategoricalDrawTakesAnotherCandidate) {
  Schedule sch(workload("matmul:M=8,N=8,K=4"));
  sch.sample_categorical({0, 16, 64, 512}, {0.25, 0.25, 0.25, 0.25}, 1);
  RandomState rand(5);
  std::set<int64_t> seen;
  for (int k = 0; k < 60; ++k) seen.insert(std::get<CategoricalDecision>(mutated(sch.trace(), 0, rand)).index);
  EXPECT_EQ(seen, (std::set<int64_t>{0, 2, 3}));
}

TEST(Mutate, AComputeLocationIsDrawnAgainOnReplay) {
  PrimFunc f = workload("dense:M=6,N=8,K=5,bias=1,act=relu");
  Schedule sch(f);
  sch.sample_compute_location(sch.get_block("bias_add"), LocationDecision::kRoot);
  RandomState rand(1);
  const Decision d = mutated(sch.trace(), 1, rand);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(d)) << "its legal loops depend on the decisions before it";
  Schedule again = apply_trace(sch.trace().with_decision(1, d), f);
  EXPECT_TRUE(std::holds_alternative<LocationDecision>(again.trace().instructions()[1].decision));
}

TEST(Mutate, ATraceWithoutDecisionsHasNoMutation) {
  Schedule sch(workload("matmul:M=8,N=8,K=4"));
  sch.get_loops(sch.get_block("C"));
  RandomState rand(1);
  EXPECT_FALSE(mutate(sch.trace(), rand));
}

}  // namespace
}  // namespace kiln::search
