// The tune loop, for real: builder and runner processes, a SQLite database.
// A short tune beats the default program, a rerun resumes, and a candidate
// that crashes its runner is a record, not the end of the job.
#include <gtest/gtest.h>


#include <algorithm>
#include <set>

#include "ops/workload.h"
#include "costmodel/features.h"
#include "costmodel/xgb_model.h"
#include "search/evolutionary.h"
#include "search/transfer.h"
#include "search/tuner.h"
#include "targets/runtime/timing.h"
#include "tir/analysis/workload_key.h"
#include "support/faulty_artifacts.h"
#include "tuning_logs/sqlite_database.h"
#include "tuning_logs/workload_entry.h"
#include "support/scratch.h"

namespace kiln::search {
namespace {

const char kWorkload[] = "matmul:M=64,N=64,K=64";

std::string fresh_db(const std::string& name) { return testing::scratch_path(name + ".db"); }

TuneTask task_of(const std::string& workload) {
  ops::Workload w = ops::parse_workload(workload);
  PrimFunc f = ops::build_workload(w);
  return {tuning::workload_entry(f, w.op, w.str(), ops::workload_flops(w)), f};
}

// A design's tile decisions, in order.
std::vector<Decision> tile_decisions(const Trace& t) {
  std::vector<Decision> out;
  const Trace design = t.without_postproc();
  for (const Instruction& i : design.instructions())
    if (is_tile_sample(i)) out.push_back(i.decision);
  return out;
}

// The key of the workload in `db` other than `not_this`'s.
std::string first_key(tuning::Database& db, const TuneTask& not_this) {
  for (const tuning::WorkloadEntry& w : db.workloads())
    if (w.key != not_this.entry.key) return w.key;
  return "";
}

TuneOptions options(int64_t trials) {
  TuneOptions o;
  o.target = Target::parse("llvm -num-cores=2");
  o.trials = trials;
  o.batch_size = 8;
  o.timing.repeat = 3;
  o.final_top = 0;  // the final measurement has a test of its own
  return o;
}

TEST(Tune, AShortTuneBeatsTheDefaultProgramAndAReRunResumes) {
  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("resume"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  auto random = make_random_search();
  std::vector<TuneProgress> seen;
  TuneResult first = tune(task, options(16), {*db, builder, *runner}, *random,
                          [&](const TuneProgress& p) { seen.push_back(p); });
  EXPECT_EQ(first.measured_now, 16);
  EXPECT_EQ(first.last.trials_done, 16);
  ASSERT_EQ(seen.size(), 2u) << "a progress report per batch of 8";
  EXPECT_EQ(seen[0].trials_done, 8);
  ASSERT_TRUE(first.best.has_value());

  // The default program, measured by the same runner.
  Target t = options(1).target;
  rpc::MeasureBatch b;
  b.timing.repeat = 3;
  b.references.push_back(testing::reference(task.func, t));
  b.candidates.push_back(testing::candidate(0, task.func, testing::default_artifact(task.func, t)));
  rpc::MeasureResult untuned = runner->measure(b).front();
  ASSERT_TRUE(untuned.ok()) << untuned.message;
  EXPECT_LT(first.best->median_secs(), median(untuned.times_s))
      << "tuned " << first.best->median_secs() << " s against the default's " << median(untuned.times_s) << " s";

  // Again with 24 trials: 8 more, none measured before.
  TuneResult second = tune(task, options(24), {*db, builder, *runner}, *random);
  EXPECT_EQ(second.measured_now, 8);
  EXPECT_EQ(second.last.trials_done, 24);
  std::vector<tuning::TuningRecord> all = db->records_of(task.entry.key, t.str());
  ASSERT_EQ(all.size(), 24u);
  std::set<std::string> traces;
  for (const tuning::TuningRecord& r : all) traces.insert(r.trace_json);
  EXPECT_EQ(traces.size(), 24u) << "no trace was measured twice";
  EXPECT_LE(second.best->median_secs(), first.best->median_secs());
}

TEST(Tune, OnOpenclAShortTuneBeatsTheAutoBoundDefaultProgram) {
  // On the OpenCL device (PoCL here): the local runner finds it, the
  // default program is every nest bound to blocks of threads, and the
  // candidates are GPU modules the device builds.
  TuneTask task = task_of("matmul:M=128,N=128,K=128");
  auto db = tuning::open_sqlite_database(fresh_db("opencl"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  ASSERT_FALSE(runner->info().gpus.empty()) << "the runner found no OpenCL device";
  auto random = make_random_search();
  TuneOptions o = options(16);
  o.target = Target::parse("opencl");
  TuneResult r = tune(task, o, {*db, builder, *runner}, *random);
  ASSERT_TRUE(r.best.has_value());

  rpc::MeasureBatch b;
  b.timing.repeat = 3;
  b.references.push_back(testing::reference(task.func, o.target));
  b.candidates.push_back(testing::candidate(0, task.func, testing::default_artifact(task.func, o.target)));
  rpc::MeasureResult untuned = runner->measure(b).front();
  ASSERT_TRUE(untuned.ok()) << untuned.message;
  EXPECT_LT(r.best->median_secs(), median(untuned.times_s))
      << "tuned " << r.best->median_secs() << " s against the default's " << median(untuned.times_s) << " s";
}

TEST(Tune, EvolutionarySearchWithXgboostLearnsAsItGoes) {
  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("evolutionary"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  auto model = costmodel::make_xgb_model(
      {.feature_version = costmodel::kFeatureVersion, .feature_length = costmodel::kFeatureLength});
  costmodel::CostModel* m = model.get();
  auto evo = make_evolutionary_search(std::move(model), {.population = 48, .generations = 2});
  TuneResult r = tune(task, options(24), {*db, builder, *runner}, *evo);
  EXPECT_EQ(r.last.trials_done, 24);
  EXPECT_EQ(m->num_trained(), 24 - r.last.errors) << "retrained on every valid measurement";
  std::set<std::string> traces;
  for (const tuning::TuningRecord& rec : db->records_of(task.entry.key, options(1).target.str()))
    traces.insert(rec.trace_json);
  EXPECT_EQ(traces.size(), 24u);
  EXPECT_TRUE(r.best.has_value());

  // A new job on the same database starts from what the first measured: its
  // fresh model learns from the 24 earlier trials too, not only its own 8.
  auto fresh = costmodel::make_xgb_model(
      {.feature_version = costmodel::kFeatureVersion, .feature_length = costmodel::kFeatureLength});
  costmodel::CostModel* m2 = fresh.get();
  auto resumed = make_evolutionary_search(std::move(fresh), {.population = 48, .generations = 2});
  TuneResult again = tune(task, options(32), {*db, builder, *runner}, *resumed);
  EXPECT_EQ(again.measured_now, 8);
  EXPECT_EQ(m2->num_trained(), 32 - again.last.errors) << "trained on the earlier run's valid records as well";
}

TEST(Tune, TheBestRecordsAreTimedAgainAtTheEndAndRankedByIt) {
  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("final"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  auto random = make_random_search();
  TuneOptions o = options(16);
  o.final_top = 3;
  o.final_share = 1;  // all three, whatever they cost beside two short rounds
  o.final_repeat = 4;
  o.final_min_repeat_ms = 5;
  std::vector<TuneProgress> seen;
  TuneResult r = tune(task, o, {*db, builder, *runner}, *random, [&](const TuneProgress& p) { seen.push_back(p); });
  // Two rounds, then the final report: the three fastest by their first
  // measurement were timed again, and rank first.
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].final_measured, 0);
  EXPECT_EQ(seen[2].final_measured, 3);
  const std::string target = o.target.str();
  std::vector<tuning::TuningRecord> top = db->top_k(task.entry.key, target, 3);
  ASSERT_EQ(top.size(), 3u);
  for (const tuning::TuningRecord& t : top) {
    EXPECT_GE(t.final_secs.size(), 4u) << "each of the best three has a final measurement";
    EXPECT_LE(t.rank_secs(), top.back().rank_secs());
  }
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->id, top[0].id);
  EXPECT_DOUBLE_EQ(r.last.best_gflops, task.entry.flops / top[0].rank_secs() / 1e9);
  std::vector<tuning::TuningRecord> all = db->records_of(task.entry.key, target);
  EXPECT_EQ(all.size(), 16u) << "timing again adds no trial";
  // The shortlist was the three fastest by their first measurement.
  std::vector<tuning::TuningRecord> valid;
  for (const tuning::TuningRecord& a : all)
    if (a.ok()) valid.push_back(a);
  std::stable_sort(valid.begin(), valid.end(),
                   [](const auto& a, const auto& b) { return a.median_secs() < b.median_secs(); });
  std::set<int64_t> shortlist, timed;
  for (size_t i = 0; i < 3; ++i) shortlist.insert(valid[i].id);
  for (const tuning::TuningRecord& t : top) timed.insert(t.id);
  EXPECT_EQ(timed, shortlist);

  // A stopped job ends without one.
  std::atomic<bool> stop{true};
  o.trials = 24;
  TuneResult stopped = tune(task, o, {*db, builder, *runner}, *random, {}, &stop);
  EXPECT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.last.final_measured, 0);
}

// The final measurement's share of a run, the rule a model's tasks follow
// too: 15% of the whole run by default, its best timed again whatever it
// costs. Before: an 8-trial tune of a small matmul took about a second of
// rounds and timed five records again for 12 s (examples/python/03_tune.py).
TEST(Tune, WithoutABudgetAShortTuneTimesAgainOnlyItsBest) {
  TuneOptions o = options(8);
  EXPECT_EQ(final_slots(o, /*budget_s=*/0, /*run_s=*/85, /*candidate_s=*/3), 5) << "15% of 100 s: 5 records of 3 s";
  EXPECT_EQ(final_slots(o, 0, 1, 3), 0);
  EXPECT_EQ(final_slots(o, /*budget_s=*/100, /*run_s=*/91, /*candidate_s=*/3), 3) << "what is left of the budget";
  o.final_share = 1;
  EXPECT_GT(final_slots(o, 0, 1, 3), 1000);
  // A share no short tune's rounds pay a record of (at the default a slow
  // host's rounds could pay for two): the best alone, whatever it costs.
  o.final_share = 0.01;

  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("final_share"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  auto random = make_random_search();
  o.final_top = 5;
  o.final_repeat = 3;
  o.final_min_repeat_ms = 1;
  TuneResult r = tune(task, o, {*db, builder, *runner}, *random);
  EXPECT_EQ(r.measured_now, 8);
  EXPECT_EQ(r.last.final_measured, 1);
  const std::vector<tuning::TuningRecord> all = db->records_of(task.entry.key, o.target.str());
  EXPECT_EQ(std::count_if(all.begin(), all.end(), [](const auto& x) { return !x.final_secs.empty(); }), 1);
  ASSERT_TRUE(r.best);
  EXPECT_FALSE(r.best->final_secs.empty()) << "the best is the one timed again";
}

// A model's task times its weights cold (search::ModelArgs): every
// candidate still measures, and the final measurement takes three times
// the repeats, each a single cold run, rather than raised runs that would
// find the weights cached after the first.
TEST(Tune, WithColdWeightsTheFinalMeasurementTimesSingleColdRuns) {
  TuneTask task = task_of(kWorkload);
  task.model.cold_args = {1};  // B, as if it were a weight
  auto db = tuning::open_sqlite_database(fresh_db("cold"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  auto random = make_random_search();
  TuneOptions o = options(8);
  o.final_top = 2;
  o.final_share = 1;
  o.final_repeat = 4;
  TuneResult r = tune(task, o, {*db, builder, *runner}, *random);
  EXPECT_EQ(r.measured_now, 8);
  std::vector<tuning::TuningRecord> top = db->top_k(task.entry.key, o.target.str(), 2);
  ASSERT_EQ(top.size(), 2u);
  for (const tuning::TuningRecord& t : top) EXPECT_EQ(t.final_secs.size(), 12u);
}

// How much slower the spell makes a sample: far slower than any the host
// makes. A sample of a kernel this small that the system preempts can read
// 100x its median on a loaded machine (the sanitizer suite on 2 cores
// failed the test once, most likely so, when the spell was 1000x and the
// count's bar 100x), and must not count as the spell.
constexpr double kSpell = 1e6;

// A real runner in a machine that runs slow for a spell: the samples of
// the first candidate timed in the final measurement's first batch (the
// one that warms up) come back kSpell times slower.
class SlowSpell final : public rpc::Runner {
 public:
  explicit SlowSpell(rpc::Runner& real) : real_(real) {}
  rpc::DeviceInfo info() override { return real_.info(); }
  std::vector<rpc::MeasureResult> measure(const rpc::MeasureBatch& batch, const rpc::ResultCallback& on_result) override {
    std::vector<rpc::MeasureResult> out = real_.measure(batch, on_result);
    if (batch.timing.warmup_ms > 0) {
      ++final_batches;
      if (final_batches == 1 && !out.empty())
        for (double& t : out[0].times_s) t *= kSpell;
    }
    return out;
  }
  std::string address() const override { return real_.address(); }

  int final_batches = 0;

 private:
  rpc::Runner& real_;
};

// The final measurement times its shortlist in three passes, each a third
// of the repeats: a slow spell over one candidate's turn reaches a third
// of its samples, and its median stays where its speed is.
TEST(Tune, TheFinalMeasurementTimesTheShortlistInPassesThatASlowSpellCannotSkew) {
  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("spell"));
  rpc::Builder builder({.workers = 2});
  auto real = rpc::connect_runner("local");
  SlowSpell runner(*real);
  auto random = make_random_search();
  TuneOptions o = options(8);
  o.final_top = 2;
  o.final_share = 1;
  o.final_repeat = 6;
  o.final_min_repeat_ms = 1;
  TuneResult r = tune(task, o, {*db, builder, runner}, *random);
  EXPECT_EQ(r.last.final_measured, 2);
  EXPECT_EQ(runner.final_batches, 3);
  std::vector<tuning::TuningRecord> top = db->top_k(task.entry.key, o.target.str(), 2);
  ASSERT_EQ(top.size(), 2u);
  for (const tuning::TuningRecord& t : top) {
    ASSERT_EQ(t.final_secs.size(), 6u);
    int slow = 0;
    for (double secs : t.final_secs) slow += secs > kSpell / 100 * t.median_secs();
    EXPECT_LE(slow, 2) << "the spell reaches only the first pass";
    // A median the spell reached would read about kSpell / 2 times the
    // first measurement; one the host slowed, as it slows a loaded suite's
    // samples, reads tens of times (19x once, under the whole suite).
    EXPECT_LT(t.rank_secs(), kSpell / 1000 * t.median_secs()) << "the median passes over it";
  }
}

TEST(Tune, TheBestDesignsOfASimilarWorkloadAreMeasuredFirst) {
  auto db = tuning::open_sqlite_database(fresh_db("similar"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  TuneTask first = task_of(kWorkload);
  auto random = make_random_search();
  tune(first, options(8), {*db, builder, *runner}, *random);
  const std::string target = options(1).target.str();
  std::vector<tuning::TuningRecord> best = db->top_k(first.entry.key, target, 4);
  ASSERT_FALSE(best.empty());

  // Another shape of matmul: the first batch leads with those designs, their
  // tiles fitted to the new shape.
  TuneTask second = task_of("matmul:M=32,N=64,K=128");
  auto evo = make_evolutionary_search(costmodel::make_xgb_model({.feature_version = costmodel::kFeatureVersion,
                                                                 .feature_length = costmodel::kFeatureLength}),
                                      {.population = 32, .generations = 2});
  TuneResult r = tune(second, options(8), {*db, builder, *runner}, *evo);
  EXPECT_EQ(r.last.carried_over, static_cast<int64_t>(best.size()));
  EXPECT_GT(r.last.register_designs, 0) << "register_designs.h: measured next";
  std::vector<tuning::TuningRecord> batch = db->records_of(second.entry.key, target);
  ASSERT_EQ(batch.size(), 8u);
  for (const tuning::TuningRecord& b : best) {
    // Records are written against the canonical form (blocks b0, b1, ...).
    std::optional<Trace> moved = transfer_design(canonical_workload(second.func), Trace::parse(b.trace_json));
    ASSERT_TRUE(moved);
    // Replayed, as the tuner does: a partial tile's outermost is inferred then.
    std::optional<Candidate> there = replay_candidate(canonical_workload(second.func), *moved);
    ASSERT_TRUE(there);
    moved = there->trace;
    bool measured = false;
    for (const tuning::TuningRecord& m : batch) measured = measured || tile_decisions(Trace::parse(m.trace_json)) == tile_decisions(*moved);
    EXPECT_TRUE(measured) << "not in the first batch: " << moved->str();
  }

  // With similar_workloads 0, nothing is carried over.
  TuneOptions none = options(8);
  none.similar_workloads = 0;
  auto evo2 = make_evolutionary_search(costmodel::make_xgb_model({.feature_version = costmodel::kFeatureVersion,
                                                                  .feature_length = costmodel::kFeatureLength}),
                                       {.population = 32, .generations = 2});
  EXPECT_EQ(tune(task_of("matmul:M=16,N=64,K=128"), none, {*db, builder, *runner}, *evo2).last.carried_over, 0);
}

TEST(Tune, AJobTakesTheDesignsASiblingMeasuredAfterItStarted) {
  // A model's tasks start together on an empty database; the similar
  // designs are read again every round, so the second task's first round
  // leads with what the first task's round measured.
  auto db = tuning::open_sqlite_database(fresh_db("siblings"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  TuneOptions o = options(8);
  o.register_designs = 0;
  const TuneServices services{*db, builder, *runner};
  TuneJob first(task_of(kWorkload), o, services);
  TuneTask second_task = task_of("matmul:M=32,N=64,K=128");
  TuneJob second(second_task, o, services);
  auto random = make_random_search();
  ASSERT_EQ(first.round(*random, 8), 8);
  auto evo = make_evolutionary_search(costmodel::make_xgb_model({.feature_version = costmodel::kFeatureVersion,
                                                                 .feature_length = costmodel::kFeatureLength}),
                                      {.population = 32, .generations = 2});
  ASSERT_EQ(second.round(*evo, 8), 8);
  const std::string target = o.target.str();
  std::vector<tuning::TuningRecord> best = db->top_k(first_key(*db, second_task), target, 4);
  ASSERT_FALSE(best.empty());
  EXPECT_EQ(second.progress().carried_over, static_cast<int64_t>(best.size()));
  // Compared by their tiles, fitted to the new shape, as the tuner replays them.
  std::vector<std::vector<Decision>> measured;
  for (const tuning::TuningRecord& r : db->records_of(second_task.entry.key, target))
    measured.push_back(tile_decisions(Trace::parse(r.trace_json)));
  const PrimFunc f = canonical_workload(second_task.func);
  for (const tuning::TuningRecord& b : best) {
    std::optional<Trace> moved = transfer_design(f, Trace::parse(b.trace_json));
    ASSERT_TRUE(moved);
    std::optional<Candidate> there = replay_candidate(f, *moved);
    ASSERT_TRUE(there);
    EXPECT_NE(std::find(measured.begin(), measured.end(), tile_decisions(there->trace)), measured.end())
        << "not measured: " << moved->str();
  }
}

// A real runner whose first candidate is swapped for a kernel that segfaults.
class CrashingFirst final : public rpc::Runner {
 public:
  CrashingFirst(rpc::Runner& real, Artifact crash) : real_(real), crash_(std::move(crash)) {}
  rpc::DeviceInfo info() override { return real_.info(); }
  std::vector<rpc::MeasureResult> measure(const rpc::MeasureBatch& batch, const rpc::ResultCallback& on_result) override {
    rpc::MeasureBatch b = batch;
    if (!done_ && !b.candidates.empty()) {
      b.candidates[0].artifact = crash_;
      done_ = true;
    }
    return real_.measure(b, on_result);
  }
  std::string address() const override { return real_.address(); }

 private:
  rpc::Runner& real_;
  Artifact crash_;
  bool done_ = false;
};

TEST(Tune, ACandidateThatCrashesIsARecordAndTheJobGoesOn) {
  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("crash"));
  rpc::Builder builder({.workers = 2});
  auto real = rpc::connect_runner("local");
  CrashingFirst runner(*real, testing::faulty_artifact(task.func, options(1).target, testing::Fault::kSegfault));
  auto random = make_random_search();
  TuneResult r = tune(task, options(16), {*db, builder, runner}, *random);
  EXPECT_EQ(r.last.trials_done, 16);
  EXPECT_EQ(r.last.errors, 1);
  std::map<std::string, int64_t> kinds = db->counts_by_error();
  EXPECT_EQ(kinds["runtime_error"], 1);
  EXPECT_EQ(kinds["none"], 15);
  EXPECT_TRUE(r.best.has_value());
}

// A real runner that reports its first candidate as a compiler bug, as a
// worker does when an internal check fails while it loads or runs one.
class InternalErrorFirst final : public rpc::Runner {
 public:
  explicit InternalErrorFirst(rpc::Runner& real) : real_(real) {}
  rpc::DeviceInfo info() override { return real_.info(); }
  std::vector<rpc::MeasureResult> measure(const rpc::MeasureBatch& batch, const rpc::ResultCallback& on_result) override {
    std::vector<rpc::MeasureResult> results = real_.measure(batch, on_result);
    if (!done_ && !results.empty()) {
      results[0].error = ErrorKind::kInternal;
      results[0].message = "internal error at run_worker.cpp:1: check 'args.size() == specs.size()' failed";
      results[0].times_s.clear();
      done_ = true;
    }
    return results;
  }
  std::string address() const override { return real_.address(); }

 private:
  rpc::Runner& real_;
  bool done_ = false;
};

TEST(Tune, AnInternalErrorIsStoredCountedAndShownWithItsMessage) {
  TuneTask task = task_of(kWorkload);
  auto db = tuning::open_sqlite_database(fresh_db("internal"));
  rpc::Builder builder({.workers = 2});
  auto real = rpc::connect_runner("local");
  InternalErrorFirst runner(*real);
  auto random = make_random_search();
  std::vector<int64_t> shown;
  TuneResult r = tune(task, options(16), {*db, builder, runner}, *random,
                      [&](const TuneProgress& p) { shown.push_back(p.internal_errors); });
  EXPECT_EQ(r.last.trials_done, 16) << "the job goes on: what it measures is kept";
  EXPECT_EQ(r.last.errors, 1);
  EXPECT_EQ(r.last.internal_errors, 1);
  EXPECT_EQ(shown, (std::vector<int64_t>{1, 1})) << "every progress report after it shows it";
  EXPECT_NE(r.last.first_internal_error.find("check 'args.size() == specs.size()' failed"), std::string::npos);
  std::map<std::string, int64_t> kinds = db->counts_by_error();
  EXPECT_EQ(kinds["internal"], 1);
  EXPECT_EQ(kinds["none"], 15);
}

}  // namespace
}  // namespace kiln::search

