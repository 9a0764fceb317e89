// The task scheduler: which task gets the next batch, and a short job over
// two real tasks that shares its trials, stops at its caps and resumes.
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/workload.h"
#include "search/task_scheduler.h"
#include "support/scratch.h"
#include "tuning_logs/sqlite_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::search {
namespace {

using Policy = TaskSchedulerOptions::Policy;

SchedulerTask task_of(const std::string& workload, int64_t weight) {
  ops::Workload w = ops::parse_workload(workload);
  PrimFunc f = ops::build_workload(w);
  return {{tuning::workload_entry(f, w.op, w.str(), ops::workload_flops(w)), f}, weight, w.op};
}

TaskState state(int64_t trials, double best, int64_t trials_before, double best_before) {
  TaskState s;
  s.trials = trials;
  s.best_secs = best;
  s.trials_before = trials_before;
  s.best_before = best_before;
  s.rounds = 1;
  return s;
}

TEST(PickTask, EveryTaskOnceThenWhereTheWeightedLatencyDropsMost) {
  std::vector<SchedulerTask> defs = {task_of("matmul:M=8,N=8,K=8", 1), task_of("matmul:M=8,N=8,K=16", 3)};
  std::vector<TaskState> s(2);
  s[0].rounds = 1;
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 0), 1u) << "task 1 has had no round";
  // Both tuned alike, 64 trials each, 1 ms: the weight decides.
  s = {state(64, 1e-3, 0, 0), state(64, 1e-3, 0, 0)};
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 0), 1u);
  // Task 0 still improving fast (2 ms -> 1 ms over its last 64 trials),
  // task 1 flat at 0.1 ms: task 0's expected drop, weighted, is larger.
  s = {state(128, 1e-3, 64, 2e-3), state(128, 1e-4, 64, 1e-4)};
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 1), 0u);
  // A task without a valid measurement comes first; a done one never.
  s[1].best_secs = 0;
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 1), 1u);
  s[1].done = true;
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 1), 0u);
  s[0].done = true;
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 1), 2u) << "all done: none";
  // Under a time budget, per second: task 1 (1.5 ms against 1 ms, 64
  // trials each) expects the larger drop per trial, but its trials have
  // cost four times task 0's (64 s against 16 s), so task 0's drop per
  // second is the larger.
  defs = {task_of("matmul:M=8,N=8,K=8", 1), task_of("matmul:M=8,N=8,K=16", 1)};
  s = {state(64, 1e-3, 0, 0), state(64, 1.5e-3, 0, 0)};
  s[0].round_s = 16, s[0].round_trials = 64;
  s[1].round_s = 64, s[1].round_trials = 64;
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 0), 1u);
  EXPECT_EQ(pick_task(s, defs, Policy::kGradient, 0.2, 0, /*per_second=*/true), 0u);
  // Round-robin: the next in turn.
  s = {state(64, 1e-3, 0, 0), state(64, 1e-4, 0, 0)};
  EXPECT_EQ(pick_task(s, defs, Policy::kRoundRobin, 0.2, 0), 1u);
  EXPECT_EQ(pick_task(s, defs, Policy::kRoundRobin, 0.2, 1), 0u);
}

TEST(FirstRoundTrials, UnderABudgetEveryTaskGetsAFirstRound) {
  // 200 s left, 20 tasks without a round, 0.25 s a trial: half the time
  // shared, 5 s each, 20 trials.
  EXPECT_EQ(first_round_trials(200, 20, 0.25, 64), 20);
  // Time enough: a full batch; none left: the least a first round takes.
  EXPECT_EQ(first_round_trials(1e4, 2, 0.25, 64), 64);
  EXPECT_EQ(first_round_trials(-5, 20, 0.25, 64), kMinFirstRound);
  EXPECT_EQ(first_round_trials(0, 20, 0.25, 4), 4) << "never past the batch";
}

TEST(ShortlistSizes, TheFinalMeasurementGoesWhereTheLatencyIs) {
  // Room for all: each task its top.
  EXPECT_EQ(shortlist_sizes({3, 1, 0.5}, 5, 100), (std::vector<int>{5, 5, 5}));
  // 6 slots among parts 6 : 3 : 1 (D'Hondt: 6, 3, 3, 2, 1.5, 1.2 -> the
  // first task four, the second two, the third none).
  EXPECT_EQ(shortlist_sizes({6, 3, 1}, 5, 6), (std::vector<int>{4, 2, 0}));
  // The cap frees slots for the others; a task not tuned (part 0) gets none.
  EXPECT_EQ(shortlist_sizes({100, 1, 0}, 2, 3), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(shortlist_sizes({1, 1}, 5, 0), (std::vector<int>{0, 0}));
  // Each task with a part holds `least` first, slots or none; the rest by
  // D'Hondt (2 : 1.5 : 0.5, then 1.5 : 1.5 : 0.5, the first on a tie).
  EXPECT_EQ(shortlist_sizes({6, 3, 1, 0}, 5, 0, 1), (std::vector<int>{1, 1, 1, 0}));
  EXPECT_EQ(shortlist_sizes({6, 3, 1}, 5, 6, 1), (std::vector<int>{4, 1, 1}));
  EXPECT_EQ(shortlist_sizes({6, 3}, 0, 6, 1), (std::vector<int>{0, 0})) << "never past the top";
}

// Two small real tasks (weights 2 and 1), and the options of a short job
// over them: `trials` a task in batches of `batch`, timed briefly.
const std::vector<SchedulerTask>& two_tasks() {
  static const std::vector<SchedulerTask> tasks = {task_of("matmul:M=32,N=32,K=32", 2),
                                                   task_of("dense:M=4,N=32,K=32", 1)};
  return tasks;
}

TaskSchedulerOptions short_job(int64_t trials, int batch, int final_top) {
  TaskSchedulerOptions o;
  o.trials_per_task = trials;
  o.tune.target = Target::parse("llvm -num-cores=2");
  o.tune.batch_size = batch;
  o.tune.timing.repeat = 2;
  o.tune.final_top = final_top;
  o.tune.register_designs = 2;
  return o;
}

TEST(TuneTasks, WithoutABudgetAShortTuneTimesAgainOnlyEachTasksBest) {
  // Before: five records of each task timed again at length, about 1.5 s
  // each, after rounds of a second or two. After: the final measurement
  // held to TuneOptions::final_share of the run, each task's best timed again
  // all the same.
  const std::vector<SchedulerTask>& tasks = two_tasks();
  auto db = tuning::open_sqlite_database(testing::scratch_path("scheduler_final.db"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  TaskSchedulerOptions o = short_job(/*trials=*/3, /*batch=*/3, /*final_top=*/5);
  o.tune.final_repeat = 3;  // short: what is timed again is the question
  o.tune.final_min_repeat_ms = 1;
  SchedulerResult r = tune_tasks(tasks, o, {*db, builder, *runner}, [](size_t) { return make_random_search(); });
  EXPECT_EQ(r.last.trials_now, 6);
  for (const SchedulerTask& t : tasks) {
    const std::vector<tuning::TuningRecord> records = db->records_of(t.task.entry.key, o.tune.target.str());
    ASSERT_EQ(records.size(), 3u);
    const auto timed_again = std::count_if(records.begin(), records.end(),
                                           [](const tuning::TuningRecord& x) { return !x.final_secs.empty(); });
    EXPECT_EQ(timed_again, 1) << t.name;
  }
}

TEST(TuneTasks, SharesTheTrialsStopsAtTheCapsAndResumes) {
  const std::vector<SchedulerTask>& tasks = two_tasks();
  auto db = tuning::open_sqlite_database(testing::scratch_path("scheduler.db"));
  rpc::Builder builder({.workers = 2});
  auto runner = rpc::connect_runner("local");
  TaskSchedulerOptions o = short_job(/*trials=*/8, /*batch=*/4, /*final_top=*/0);
  auto strategies = [](size_t) { return make_random_search(); };
  std::vector<size_t> order;
  SchedulerResult r = tune_tasks(tasks, o, {*db, builder, *runner}, strategies,
                                 [&](const SchedulerProgress& p) { order.push_back(p.task); });
  // Two batches of 4 per task, the first round of each before any second.
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0], 0u);
  EXPECT_EQ(order[1], 1u);
  for (const TaskState& s : r.tasks) {
    EXPECT_EQ(s.trials, 8);
    EXPECT_TRUE(s.done);
    EXPECT_GT(s.best_secs, 0);
    EXPECT_GT(s.untuned_secs, 0);
  }
  EXPECT_EQ(r.last.trials_now, 16);
  EXPECT_EQ(r.last.tasks_tuned, 2);
  // The estimate: each task's best, times its weight (these tiny tasks'
  // default programs may well be faster: no threads to start).
  EXPECT_DOUBLE_EQ(r.last.latency_s, 2 * r.tasks[0].best_secs + r.tasks[1].best_secs);
  EXPECT_DOUBLE_EQ(r.last.untuned_latency_s, 2 * r.tasks[0].untuned_secs + r.tasks[1].untuned_secs);
  EXPECT_EQ(db->records_of(tasks[0].task.entry.key, o.tune.target.str()).size(), 8u);
  EXPECT_EQ(db->count_records(tasks[0].task.entry.key, o.tune.target.str()), 8);
  EXPECT_EQ(db->count_records(tasks[0].task.entry.key, "llvm -mcpu=nowhere"), 0);

  // A rerun with a higher cap resumes: 8 more trials each, no more.
  o.trials_per_task = 12;
  o.trials = 6;  // this run's budget across tasks
  SchedulerResult again = tune_tasks(tasks, o, {*db, builder, *runner}, strategies);
  EXPECT_EQ(again.last.trials_now, 6);
  EXPECT_EQ(again.tasks[0].trials + again.tasks[1].trials, 22);
}

}  // namespace
}  // namespace kiln::search
