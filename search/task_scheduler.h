// Tuning many tasks with one budget: a model's tasks (graph/tasks.h), each
// a workload with a weight (how many times the model runs it).
//
// The job goes in rounds; a round gives one task one batch: one round of
// the task's TuneJob (tuner.h), which each task keeps for the whole run, so
// that its design space, its measured traces and its default program are
// set up once. Which task, after each has had one round:
//  - gradient (Ansor's task scheduler): the task whose weighted latency is
//    expected to drop most per trial. Per task i, with g its best time, w
//    its weight and t its trials,
//        grad = w · (α · (g − g_before) / trials_since + (1 − α) · (−g / t))
//    the first term how fast it improved over its last round, the second
//    the drop if doubling its trials halved its time; the most negative
//    wins. A task with no valid measurement yet comes first.
//  - round-robin: each in turn.
// Under a time budget (TuneOptions has the final measurement's size):
//  - the gradient is per second rather than per trial: divided by the
//    task's seconds per trial in this run's rounds (a Winograd
//    convolution's trials cost about three of a direct one's);
//  - a task's first round is sized so that every task gets one: half the
//    time left, less what the final measurement keeps back, shared among
//    the tasks that have had none, at this run's seconds per trial so far
//    (first_round_trials), at least kMinFirstRound trials (the register
//    designs come first in a round: search/register_designs.h);
//  - the final measurement gets at most TuneOptions::final_share of the
//    budget (final_reserve_s, tuner.h): the candidates it can time in that
//    are shared among the tasks by their part of the model's latency
//    (shortlist_sizes). Timed in full, 5 candidates of each of resnet18's
//    20 tasks took over 2 minutes.
// Without a budget the final measurement is held to the same share of the
// whole run (final_slots, tuner.h: the rule an operator's tune follows),
// shared the same way, but each tuned task's best is timed again whatever
// it costs: a long tune times its full shortlists, a tune of a few trials
// a task does not spend five times its rounds on them.
// A task stops getting rounds at its trial cap or when its space holds
// nothing new. Each task keeps its search strategy (and so its cost model)
// across its rounds. The job ends when the trials or the time are spent, or
// when asked to stop; every batch is in the database by then, and a rerun
// resumes from it (a task's trials count what the database holds).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/strategy.h"
#include "search/tuner.h"

namespace kiln::search {

struct SchedulerTask {
  TuneTask task;
  int64_t weight = 1;
  std::string name;  // for progress lines: "Conv+Relu"
};

struct TaskSchedulerOptions {
  enum class Policy { kGradient, kRoundRobin };  // "gradient", "round-robin"
  Policy policy = Policy::kGradient;
  int64_t trials = 0;            // this run's trials across tasks (0: until the caps or the time)
  int64_t trials_per_task = 0;   // a task's cap, earlier runs included (0: none)
  double time_budget_s = 0;      // 0: none
  double alpha = 0.2;            // Ansor's weight of the observed improvement
  // Per task: target, batch size, seed (task i draws from seed + 7919·i),
  // timing, final measurement (once per task at the end, not per round).
  TuneOptions tune;
};

// A policy's name, and the policy a name gives (kiln::Error naming the
// choices for any other): the flags, the Python API and a farm's job spec
// spell them so.
const char* policy_name(TaskSchedulerOptions::Policy p);
TaskSchedulerOptions::Policy parse_policy(const std::string& name);

// How the trials are shared, as JSON: the policy, trials, trials_per_task
// and time_budget_s (how each task is tuned is `tune`, TuneOptions::to_json).
nlohmann::json schedule_json(const TaskSchedulerOptions& o);

struct TaskState {
  int64_t trials = 0;       // earlier runs included
  double best_secs = 0;     // 0: no valid measurement yet
  double untuned_secs = 0;  // the default program, timed at the start; 0: it failed
  int rounds = 0;           // this run's
  bool done = false;        // at its cap, or its space holds nothing new
  // For the gradient: the best and the trials before its last round.
  double best_before = 0;
  int64_t trials_before = 0;
  // This run's rounds of the task: their wall seconds and trials. Under a
  // time budget the gradient is per second of them, not per trial.
  double round_s = 0;
  int64_t round_trials = 0;
};

struct SchedulerProgress {
  int round = 0;
  size_t task = 0;  // the task this round tuned
  const std::vector<TaskState>* tasks = nullptr;
  int64_t trials_now = 0;  // this run's, all tasks
  int tasks_tuned = 0;     // with a valid measurement
  // Σ weight · time: the best of each task (its untuned time where it has
  // none), and every task untuned.
  double latency_s = 0, untuned_latency_s = 0;
  double elapsed_s = 0, eta_s = 0;
  // Compiler bugs met this run, all tasks (TuneProgress::internal_errors).
  int64_t internal_errors = 0;
  std::string first_internal_error;
};

struct SchedulerResult {
  std::vector<TaskState> tasks;
  SchedulerProgress last;
  bool stopped = false;
};

using StrategyFactory = std::function<std::unique_ptr<SearchStrategy>(size_t task)>;

SchedulerResult tune_tasks(const std::vector<SchedulerTask>& tasks, const TaskSchedulerOptions& options,
                           const TuneServices& services, const StrategyFactory& make_strategy,
                           const std::function<void(const SchedulerProgress&)>& on_progress = {},
                           const std::atomic<bool>* stop = nullptr);

inline constexpr int64_t kMinFirstRound = 8;

// The trials of a task's first round under a budget with `left_s` seconds
// left (the final measurement's share already taken off) and `unvisited`
// tasks without a round, this one included, at `secs_per_trial`.
int64_t first_round_trials(double left_s, size_t unvisited, double secs_per_trial, int64_t batch);

// How many records of each task the final measurement times again: `slots`
// in all, at most `top` each, apportioned to `part` (each task's part of
// the model's latency; 0: none) by D'Hondt's rule: each slot to the task
// with the largest part / (slots it holds + 1). Each task with a part
// holds `least` (at most `top`) first, whatever `slots` allows.
std::vector<int> shortlist_sizes(const std::vector<double>& part, int top, int64_t slots, int least = 0);

// The task a policy picks next among those not done (tasks.size() when all
// are): exposed for tests. `per_second` (a time budget's): the gradient is
// divided by each task's seconds per trial in this run's rounds, so that a
// task whose trials cost three times another's (a Winograd convolution's
// builds beside a direct one's) needs three times the drop per trial.
size_t pick_task(const std::vector<TaskState>& tasks, const std::vector<SchedulerTask>& defs,
                 TaskSchedulerOptions::Policy policy, double alpha, size_t last, bool per_second = false);

}  // namespace kiln::search
