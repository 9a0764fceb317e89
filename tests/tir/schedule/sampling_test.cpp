// Sampling instructions: reproducible from the seed, decisions recorded,
// checked and replayed.
#include <gtest/gtest.h>

#include <set>

#include "schedule_harness.h"

namespace kiln {
namespace {

using testing::schedule_of;
using testing::workload_func;

std::vector<int64_t> values(const Schedule& sch, const std::vector<ExprRV>& rvs) {
  std::vector<int64_t> out;
  for (ExprRV rv : rvs) out.push_back(sch.value(rv));
  return out;
}

TEST(SamplePerfectTile, FactorsMultiplyToTheExtent) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Schedule sch = schedule_of("matmul:M=96,N=8,K=4", seed);
    auto loops = sch.get_loops(sch.get_block("C"));
    auto f = values(sch, sch.sample_perfect_tile(loops[0], 3, 8));
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[0] * f[1] * f[2], 96);
    EXPECT_LE(f[2], 8);
  }
}

TEST(SamplePerfectTile, SameSeedSameSamples) {
  auto draw = [](uint64_t seed) {
    Schedule sch = schedule_of("matmul:M=1024,N=8,K=4", seed);
    auto loops = sch.get_loops(sch.get_block("C"));
    std::vector<int64_t> all;
    for (int i = 0; i < 5; ++i) {
      auto f = values(sch, sch.sample_perfect_tile(loops[0], 4, 64));
      all.insert(all.end(), f.begin(), f.end());
    }
    return all;
  };
  EXPECT_EQ(draw(7), draw(7));
  EXPECT_NE(draw(7), draw(8));
}

TEST(SamplePerfectTile, SpreadsOverTheSpace) {
  // 64 = 2^6 into 2 factors: 7 choices; 200 draws see most of them.
  Schedule sch = schedule_of("matmul:M=64,N=8,K=4", 3);
  auto loops = sch.get_loops(sch.get_block("C"));
  std::set<int64_t> inner;
  for (int i = 0; i < 200; ++i) inner.insert(values(sch, sch.sample_perfect_tile(loops[0], 2, 0))[1]);
  EXPECT_GE(inner.size(), 6u);
}

TEST(SamplePerfectTile, DecisionIsRecordedAndReplayed) {
  const char* w = "matmul:M=64,N=8,K=4";
  Schedule sch = schedule_of(w);
  auto loops = sch.get_loops(sch.get_block("C"));
  auto f = sch.sample_perfect_tile(loops[0], 2, 16, std::vector<int64_t>{4, 16});
  EXPECT_EQ(values(sch, f), (std::vector<int64_t>{4, 16}));
  sch.split(loops[0], {f[0], f[1]});
  EXPECT_EQ(sch.trace().instructions()[2].decision, Decision(TileDecision{{4, 16}}));

  // Replaying with another decision gives another split.
  Trace changed = sch.trace().with_decision(2, TileDecision{{8, 8}});
  Schedule other = apply_trace(changed, workload_func(w), ScheduleOptions{1, true});
  const auto* root = other.func().body().as<BlockRealizeNode>()->block.as<BlockNode>();
  EXPECT_TRUE(is_const_int(root->body.as<ForNode>()->extent, 8));
  testing::expect_same_results(workload_func(w), other.func());
  EXPECT_THROW(sch.trace().with_decision(0, CategoricalDecision{1}), Error);  // get_block decides nothing
}

TEST(SamplePerfectTile, BadDecisions) {
  Schedule sch = schedule_of("matmul:M=64,N=8,K=4");
  auto loops = sch.get_loops(sch.get_block("C"));
  try {
    sch.sample_perfect_tile(loops[0], 2, 16, std::vector<int64_t>{4, 8});
    FAIL() << "expected DecisionError";
  } catch (const DecisionError& e) {
    EXPECT_STREQ(e.what(), "sample_perfect_tile: decision [4,8] is not 2 factors of loop 'i0''s extent 64");
  }
  EXPECT_THROW(sch.sample_perfect_tile(loops[0], 2, 16, std::vector<int64_t>{2, 32}), DecisionError);
  EXPECT_THROW(sch.sample_perfect_tile(loops[0], 0, 16), BadArgumentError);
}

TEST(SampleTile, FactorsCoverTheExtentAndSomeEndInAPartialTile) {
  // 1024 = 2^10 rows: a perfect tile's innermost is a power of two; a
  // covering one may take 6 (171 x 6 = 1026, the last tile predicated).
  Schedule sch = schedule_of("matmul:M=1024,N=8,K=4", 5);
  auto loops = sch.get_loops(sch.get_block("C"));
  int partial = 0;
  for (int i = 0; i < 200; ++i) {
    auto f = values(sch, sch.sample_tile(loops[0], 4, 16));
    ASSERT_EQ(f.size(), 4u);
    const int64_t inner = f[1] * f[2] * f[3];
    EXPECT_LE(f[3], 16);
    EXPECT_EQ(f[0], (1024 + inner - 1) / inner) << "the outermost covers the rest";
    partial += 1024 % f[3] != 0;
  }
  EXPECT_GT(partial, 20) << "about half the draws are covering, most of them partial";
  EXPECT_LT(partial, 150) << "the other half are perfect";
}

TEST(SampleTile, APartialTileIsPredicatedAndComputesTheSame) {
  const char* w = "matmul:M=22,N=8,K=4";
  Schedule sch = schedule_of(w);
  auto loops = sch.get_loops(sch.get_block("C"));
  // Before: 22 rows. After: 4 tiles of 6 rows, the last two rows predicated away.
  auto f = sch.sample_tile(loops[0], 2, 16, std::vector<int64_t>{0, 6});
  EXPECT_EQ(values(sch, f), (std::vector<int64_t>{4, 6})) << "the outermost inferred";
  EXPECT_EQ(sch.trace().instructions().back().decision, Decision(TileDecision{{4, 6}})) << "and recorded";
  sch.split(loops[0], {f[0], f[1]});
  testing::expect_same_results(workload_func(w), sch.func());
  // A decision with a null outermost (what a mutation leaves) replays.
  Trace inferred = sch.trace().with_decision(2, TileDecision{{TileDecision::kInferred, 11}});
  Schedule again = apply_trace(inferred, workload_func(w), ScheduleOptions{1, true});
  EXPECT_EQ(again.trace().instructions()[2].decision, Decision(TileDecision{{2, 11}}));
  testing::expect_same_results(workload_func(w), again.func());
}

TEST(SampleTile, BadDecisions) {
  Schedule sch = schedule_of("matmul:M=22,N=8,K=4");
  auto loops = sch.get_loops(sch.get_block("C"));
  try {
    sch.sample_tile(loops[0], 2, 16, std::vector<int64_t>{3, 6});
    FAIL() << "expected DecisionError";
  } catch (const DecisionError& e) {
    EXPECT_STREQ(e.what(), "sample_tile: decision [3,6] does not cover loop 'i0''s extent 22 (outermost 4)");
  }
  EXPECT_THROW(sch.sample_tile(loops[0], 2, 32, std::vector<int64_t>{1, 23}), DecisionError) << "innermost above the extent";
  EXPECT_THROW(sch.sample_tile(loops[0], 3, 16, std::vector<int64_t>{1, 8, 6}), DecisionError) << "48 for 22";
  EXPECT_NO_THROW(sch.sample_tile(loops[0], 3, 16, std::vector<int64_t>{0, 5, 6})) << "30 for 22";
  EXPECT_THROW(sch.sample_tile(loops[0], 2, 4, std::vector<int64_t>{0, 6}), DecisionError) << "innermost above 4";
  EXPECT_THROW(sch.sample_tile(loops[0], 3, 16, std::vector<int64_t>{0, 6}), DecisionError) << "two factors for three";
  EXPECT_THROW(sch.sample_tile(loops[0], 2, 16, std::vector<int64_t>{0, 0}), DecisionError);
}

TEST(SampleCategorical, WeightsAndDecision) {
  Schedule sch = schedule_of("matmul:M=8,N=8,K=4");
  int hits[3] = {0, 0, 0};
  for (int i = 0; i < 300; ++i) {
    int64_t v = sch.value(sch.sample_categorical({0, 16, 64}, {0.0, 0.5, 0.5}));
    hits[v == 0 ? 0 : v == 16 ? 1 : 2]++;
  }
  EXPECT_EQ(hits[0], 0);
  EXPECT_GT(hits[1], 100);
  EXPECT_GT(hits[2], 100);
  EXPECT_EQ(sch.value(sch.sample_categorical({0, 16, 64}, {1, 1, 1}, 2)), 64);
  EXPECT_THROW(sch.sample_categorical({0, 16}, {1, 1}, 2), DecisionError);
  EXPECT_THROW(sch.sample_categorical({0, 16}, {1}), BadArgumentError);
  EXPECT_THROW(sch.sample_categorical({0, 16}, {0, 0}), BadArgumentError);
}

}  // namespace
}  // namespace kiln
