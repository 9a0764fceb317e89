// Evolutionary search on its own, without builder or runner: what it
// proposes is new, and the same whether it runs on one thread or several.
#include <gtest/gtest.h>

#include <set>

#include "costmodel/features.h"
#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"
#include "ops/workload.h"
#include "search/evolutionary.h"
#include "search/space.h"

namespace kiln::search {
namespace {

SearchContext context_of(const std::string& workload) {
  PrimFunc f = ops::build_workload(ops::parse_workload(workload));
  return {.func = f, .sketches = design_space(f, SpaceParams::for_target(Target::parse("llvm -num-cores=2")))};
}

std::unique_ptr<SearchStrategy> evolutionary(int threads) {
  return make_evolutionary_search(
      costmodel::make_xgb_model(
          {.feature_version = costmodel::kFeatureVersion, .feature_length = costmodel::kFeatureLength}),
      {.population = 64, .generations = 3, .threads = threads});
}

std::vector<uint64_t> fingerprints(const std::vector<Candidate>& batch) {
  std::vector<uint64_t> out;
  for (const Candidate& c : batch) out.push_back(c.trace.fingerprint());
  return out;
}

// Two rounds: the first with an untrained model, the second after learning
// made-up times (a function of the trace, so both searches see the same).
std::vector<std::vector<uint64_t>> two_rounds(int threads) {
  SearchContext ctx = context_of("conv2d_nchw:N=1,C=8,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1");
  auto s = evolutionary(threads);
  std::vector<std::vector<uint64_t>> rounds;
  for (int round = 0; round < 2; ++round) {
    std::vector<Candidate> batch = s->propose(ctx, 12);
    rounds.push_back(fingerprints(batch));
    std::vector<std::optional<double>> secs;
    for (const Candidate& c : batch) {
      secs.push_back(1e-3 * (1 + c.trace.fingerprint() % 13));
      ctx.measured.insert(c.trace.fingerprint());
    }
    s->update(ctx, batch, secs);
  }
  return rounds;
}

TEST(Evolutionary, ProposesTheSameOnOneThreadAndOnTwo) {
  std::vector<std::vector<uint64_t>> one = two_rounds(1), two = two_rounds(2);
  ASSERT_EQ(one.size(), 2u);
  for (size_t r = 0; r < one.size(); ++r) {
    EXPECT_EQ(one[r].size(), 12u) << "round " << r;
    EXPECT_EQ(one[r], two[r]) << "round " << r;
  }
  // Never a trace twice, within a round or across them.
  std::set<uint64_t> all;
  for (const auto& round : one) all.insert(round.begin(), round.end());
  EXPECT_EQ(all.size(), 24u);
}

// A model that scores by a made-up function of the features and counts
// how many populations it scored (one per generation) and their sizes; one
// made with ranks = false says it cannot rank yet, as an untrained XGBoost.
class CountingModel final : public costmodel::CostModel {
 public:
  explicit CountingModel(int* populations, std::vector<size_t>* sizes = nullptr, bool ranks = true)
      : populations_(populations), sizes_(sizes), ranks_(ranks) {}
  void update(const std::vector<costmodel::ProgramFeatures>&, const std::vector<double>&) override {}
  std::vector<double> predict(const std::vector<costmodel::ProgramFeatures>& programs) const override {
    ++*populations_;
    if (sizes_) sizes_->push_back(programs.size());
    std::vector<double> out;
    for (const costmodel::ProgramFeatures& p : programs) out.push_back(p.rows.empty() ? 0.0 : p.rows[7] + p.rows.size());
    return out;
  }
  void save(const std::string&) const override {}
  std::string kind() const override { return "counting"; }
  int64_t num_trained() const override { return 0; }
  bool ranks() const override { return ranks_; }

 private:
  int* populations_;
  std::vector<size_t>* sizes_;
  bool ranks_;
};

TEST(Evolutionary, AModelThatCannotRankScoresNothingAndTheBatchIsFreshDraws) {
  int populations = 0;
  SearchContext ctx = context_of("matmul:M=16,N=16,K=16");
  auto s = make_evolutionary_search(std::make_unique<CountingModel>(&populations, nullptr, /*ranks=*/false),
                                    {.population = 32, .generations = 4, .threads = 1});
  const std::vector<Candidate> batch = s->propose(ctx, 8);
  EXPECT_EQ(batch.size(), 8u);
  EXPECT_EQ(populations, 0);
  const std::vector<uint64_t> keys = fingerprints(batch);
  EXPECT_EQ(std::set<uint64_t>(keys.begin(), keys.end()).size(), 8u);
}

TEST(Evolutionary, ABudgetTooSmallForThePopulationCutsItToSixtyFour) {
  // Before: 128 candidates a generation. After a round has timed what a
  // candidate costs to lower and featurize, a budget that cannot pay for
  // two generations of them cuts the population to the least, 64.
  int populations = 0;
  std::vector<size_t> sizes;
  SearchContext ctx = context_of("matmul:M=64,N=64,K=64");
  auto s = make_evolutionary_search(std::make_unique<CountingModel>(&populations, &sizes),
                                    {.population = 128, .generations = 2, .threads = 1});
  ASSERT_EQ(s->propose(ctx, 8).size(), 8u);
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.front(), 128u);
  sizes.clear();
  ctx.search_budget_s = 1e-9;
  ASSERT_EQ(s->propose(ctx, 8).size(), 8u);
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.front(), 64u);
  sizes.clear();
  ctx.search_budget_s = 3600;  // room for it all again
  ASSERT_EQ(s->propose(ctx, 8).size(), 8u);
  EXPECT_EQ(sizes.front(), 128u);
}

int generations_run(double budget_s) {
  int populations = 0;
  SearchContext ctx = context_of("matmul:M=16,N=16,K=16");
  ctx.search_budget_s = budget_s;
  auto s = make_evolutionary_search(std::make_unique<CountingModel>(&populations),
                                    {.population = 32, .generations = 4, .threads = 1});
  EXPECT_EQ(s->propose(ctx, 8).size(), 8u);
  return populations;
}

TEST(Evolutionary, ASpentBudgetStopsTheGenerationsAfterTheFirstChildren) {
  // Before: the initial population and three generations of children, all
  // scored. With a budget already spent: the initial population and one
  // generation of children, never fewer.
  EXPECT_EQ(generations_run(0), 4);
  EXPECT_EQ(generations_run(1e-9), 2);
  EXPECT_EQ(generations_run(3600), 4);
}

// The decisions in which two designs of one sketch differ, or -1 when
// their instructions differ.
int decisions_apart(const Trace& a, const Trace& b) {
  if (a.size() != b.size()) return -1;
  int apart = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.instructions()[i].kind != b.instructions()[i].kind) return -1;
    apart += a.instructions()[i].decision != b.instructions()[i].decision;
  }
  return apart;
}

// How many of the second batch lie within two decisions of the first
// batch's fastest design (one mutated, and a register tile refitted). The
// model scores at random, so that only the neighbours bring the batch near
// that design (a trained XGBoost may rank its neighbourhood first anyway,
// or not, depending on the draws).
int second_batch_near_the_fastest(double neighbour_share) {
  SearchContext ctx = context_of("matmul:M=64,N=64,K=64");
  auto s = make_evolutionary_search(
      costmodel::make_random_model(7),
      {.population = 64, .generations = 3, .neighbour_share = neighbour_share, .neighbour_parents = 1});
  std::vector<Candidate> first = s->propose(ctx, 16);
  std::vector<std::optional<double>> secs;
  size_t fastest = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    secs.push_back(1e-3 * (2 + first[i].trace.fingerprint() % 13));
    if (*secs[i] < *secs[fastest]) fastest = i;
    ctx.measured.insert(first[i].trace.fingerprint());
  }
  secs[fastest] = 1e-4;  // far ahead of the rest
  s->update(ctx, first, secs);
  const Trace best = first[fastest].trace.without_postproc();
  int near = 0;
  for (const Candidate& c : s->propose(ctx, 16)) {
    const int apart = decisions_apart(best, c.trace.without_postproc());
    near += apart >= 1 && apart <= 2;
  }
  return near;
}

TEST(Evolutionary, AQuarterOfEachBatchIsNeighboursOfTheFastestDesign) {
  // Before: the second batch as the model ranks the generations. After: a
  // quarter of it (4 of 16) one mutation from the fastest design, and more
  // of the batch near it than before.
  const int before = second_batch_near_the_fastest(0), after = second_batch_near_the_fastest(0.25);
  EXPECT_GE(after, 4);
  EXPECT_GT(after, before);
}

}  // namespace
}  // namespace kiln::search
