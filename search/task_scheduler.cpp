#include "search/task_scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "core/error.h"

namespace kiln::search {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A task's time in the model estimate: its best, or untuned until it has one.
double task_secs(const TaskState& s) { return s.best_secs > 0 ? s.best_secs : s.untuned_secs; }

// Before anything was timed: what a trial and a final candidate take,
// about (a 3x3 convolution's, at the median).
constexpr double kAssumedSecsPerTrial = 0.5;
constexpr double kAssumedFinalCandidateS = 2.0;

}  // namespace

const char* policy_name(TaskSchedulerOptions::Policy p) {
  return p == TaskSchedulerOptions::Policy::kGradient ? "gradient" : "round-robin";
}

TaskSchedulerOptions::Policy parse_policy(const std::string& name) {
  for (auto p : {TaskSchedulerOptions::Policy::kGradient, TaskSchedulerOptions::Policy::kRoundRobin})
    if (name == policy_name(p)) return p;
  KILN_USER_ERROR() << "unknown task scheduling policy '" << name << "' (gradient or round-robin)";
}

nlohmann::json schedule_json(const TaskSchedulerOptions& o) {
  return {{"policy", policy_name(o.policy)},
          {"trials", o.trials},
          {"trials_per_task", o.trials_per_task},
          {"time_budget_s", o.time_budget_s}};
}

int64_t first_round_trials(double left_s, size_t unvisited, double secs_per_trial, int64_t batch) {
  if (unvisited == 0 || secs_per_trial <= 0) return batch;
  const double share = 0.5 * std::max(left_s, 0.0) / static_cast<double>(unvisited);
  const double trials = std::floor(share / secs_per_trial);
  return std::clamp(static_cast<int64_t>(std::min(trials, 1e9)), std::min(kMinFirstRound, batch), batch);
}

std::vector<int> shortlist_sizes(const std::vector<double>& part, int top, int64_t slots, int least) {
  std::vector<int> n(part.size(), 0);
  for (size_t i = 0; i < part.size(); ++i)
    if (part[i] > 0) {
      n[i] = std::clamp(least, 0, top);
      slots -= n[i];
    }
  for (; slots > 0; --slots) {
    size_t pick = part.size();
    double best = 0;
    for (size_t i = 0; i < part.size(); ++i) {
      const double q = part[i] / (n[i] + 1);
      if (n[i] < top && part[i] > 0 && q > best) {
        best = q;
        pick = i;
      }
    }
    if (pick == part.size()) break;
    ++n[pick];
  }
  return n;
}

size_t pick_task(const std::vector<TaskState>& tasks, const std::vector<SchedulerTask>& defs,
                 TaskSchedulerOptions::Policy policy, double alpha, size_t last, bool per_second) {
  const size_t n = tasks.size();
  for (size_t i = 0; i < n; ++i)
    if (!tasks[i].done && tasks[i].rounds == 0) return i;  // every task once first
  if (policy == TaskSchedulerOptions::Policy::kRoundRobin) {
    for (size_t k = 1; k <= n; ++k)
      if (!tasks[(last + k) % n].done) return (last + k) % n;
    return n;
  }
  size_t pick = n;
  double best_grad = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    const TaskState& s = tasks[i];
    if (s.done) continue;
    if (s.best_secs <= 0) return i;  // nothing valid yet: its time is unknown
    const int64_t since = s.trials - s.trials_before;
    const double backward = since > 0 && s.best_before > 0 ? (s.best_secs - s.best_before) / since : 0;
    const double forward = -s.best_secs / static_cast<double>(std::max<int64_t>(s.trials, 1));
    double grad = static_cast<double>(defs[i].weight) * (alpha * backward + (1 - alpha) * forward);
    if (per_second && s.round_trials > 0 && s.round_s > 0)
      grad /= s.round_s / static_cast<double>(s.round_trials);
    if (grad < best_grad) {
      best_grad = grad;
      pick = i;
    }
  }
  return pick;
}

SchedulerResult tune_tasks(const std::vector<SchedulerTask>& tasks, const TaskSchedulerOptions& options,
                           const TuneServices& services, const StrategyFactory& make_strategy,
                           const std::function<void(const SchedulerProgress&)>& on_progress,
                           const std::atomic<bool>* stop) {
  const auto t0 = Clock::now();
  const size_t n = tasks.size();
  SchedulerResult result;
  std::vector<TaskState>& st = result.tasks;
  st.resize(n);
  std::vector<std::unique_ptr<SearchStrategy>> strategies(n);
  SchedulerProgress& p = result.last;
  p.tasks = &st;
  auto asked_to_stop = [&] { return stop && stop->load(); };
  auto estimate = [&] {
    p.latency_s = p.untuned_latency_s = 0;
    p.tasks_tuned = 0;
    for (size_t i = 0; i < n; ++i) {
      p.latency_s += static_cast<double>(tasks[i].weight) * task_secs(st[i]);
      p.untuned_latency_s += static_cast<double>(tasks[i].weight) * st[i].untuned_secs;
      p.tasks_tuned += st[i].best_secs > 0;
    }
  };
  auto capped = [&](const TaskState& s) {
    return options.trials_per_task > 0 && s.trials >= options.trials_per_task;
  };
  // One job per task, for the whole run: its design space, its measured
  // traces and its default program are set up once. Each task draws with
  // seeds of its own.
  std::vector<std::unique_ptr<TuneJob>> jobs(n);
  size_t jobs_made = 0;
  auto count_internal_errors = [&] {
    p.internal_errors = 0;
    for (size_t i = 0; i < jobs_made; ++i) {
      const TuneProgress& jp = jobs[i]->progress();
      if (p.internal_errors == 0 && jp.internal_errors > 0) p.first_internal_error = jp.first_internal_error;
      p.internal_errors += jp.internal_errors;
    }
  };
  for (size_t i = 0; i < n; ++i) {
    TuneOptions o = options.tune;
    o.seed = options.tune.seed + 7919 * static_cast<uint64_t>(i);
    jobs[i] = std::make_unique<TuneJob>(tasks[i].task, o, services);
    jobs_made = i + 1;
    st[i].trials = jobs[i]->progress().trials_done;  // what the database holds already
    const std::optional<tuning::TuningRecord> best = jobs[i]->best();
    st[i].best_secs = best && best->ok() ? best->rank_secs() : 0;
    st[i].untuned_secs = jobs[i]->time_default_program();
    st[i].done = capped(st[i]);
  }
  estimate();

  const double budget = options.time_budget_s;
  const int top = std::max(options.tune.final_top, 0);
  // Seconds a candidate of a final measurement takes: the mean of the
  // tasks' estimates so far.
  auto final_candidate_s = [&] {
    double sum = 0;
    int known = 0;
    for (size_t k = 0; k < n; ++k)
      if (st[k].rounds > 0 && jobs[k]->final_candidate_estimate_s() > 0) {
        sum += jobs[k]->final_candidate_estimate_s();
        ++known;
      }
    return known > 0 ? sum / known : kAssumedFinalCandidateS;
  };
  // What the budget keeps back for the final measurement: a shortlist for
  // every task tuned or still to be, at most TuneOptions::final_share of it.
  auto kept_back_s = [&] {
    size_t to_measure = 0;
    for (size_t k = 0; k < n; ++k) to_measure += st[k].rounds > 0 || !st[k].done;
    return final_reserve_s(options.tune, budget, static_cast<double>(top * to_measure) * final_candidate_s());
  };

  const int batch = std::max(1, options.tune.batch_size);
  size_t last = n - 1;
  while (!asked_to_stop()) {
    if (options.trials > 0 && p.trials_now >= options.trials) break;
    // The budget bounds the whole run: the final measurement's time is
    // kept back for it.
    const double reserve_s = budget > 0 ? kept_back_s() : 0;
    if (budget > 0 && seconds_since(t0) + reserve_s >= budget) break;
    const size_t i = pick_task(st, tasks, options.policy, options.alpha, last, /*per_second=*/budget > 0);
    if (i == n) break;
    last = i;
    TaskState& s = st[i];
    if (!strategies[i]) strategies[i] = make_strategy(i);

    int64_t more = batch;
    if (options.trials > 0) more = std::min(more, options.trials - p.trials_now);
    if (options.trials_per_task > 0) more = std::min(more, options.trials_per_task - s.trials);
    if (budget > 0 && s.rounds == 0) {
      size_t unvisited = 0;
      double rounds_s = 0;  // this run's rounds, all tasks: for the seconds per trial
      for (const TaskState& t : st) {
        unvisited += !t.done && t.rounds == 0;
        rounds_s += t.round_s;
      }
      const double per_trial =
          p.trials_now > 0 ? rounds_s / static_cast<double>(p.trials_now) : kAssumedSecsPerTrial;
      more = std::min(more, first_round_trials(budget - seconds_since(t0) - reserve_s, unvisited, per_trial, batch));
    }
    const auto round_t0 = Clock::now();
    const int64_t measured = jobs[i]->round(*strategies[i], static_cast<int>(more));
    s.round_s += seconds_since(round_t0);
    s.round_trials += measured;

    s.best_before = s.best_secs;
    s.trials_before = s.trials;
    s.trials = jobs[i]->progress().trials_done;
    const std::optional<tuning::TuningRecord> best = jobs[i]->best();
    if (best && best->ok()) s.best_secs = best->rank_secs();
    ++s.rounds;
    s.done = measured == 0 || capped(s);
    p.round += 1;
    p.task = i;
    p.trials_now += measured;
    count_internal_errors();
    estimate();
    p.elapsed_s = seconds_since(t0);
    const double rate = static_cast<double>(p.trials_now) / std::max(p.elapsed_s, 1e-9);
    int64_t left = 0;
    for (const TaskState& t : st)
      if (!t.done) left += options.trials_per_task > 0 ? options.trials_per_task - t.trials : 0;
    if (options.trials > 0) left = options.trials_per_task > 0 ? std::min(left, options.trials - p.trials_now)
                                                                : options.trials - p.trials_now;
    p.eta_s = rate > 0 ? static_cast<double>(left) / rate : 0;
    if (options.time_budget_s > 0) p.eta_s = std::min(p.eta_s, std::max(0.0, options.time_budget_s - p.elapsed_s));
    if (on_progress) on_progress(p);
  }
  result.stopped = asked_to_stop();

  // The final measurement of each task tuned in this run: its shortlist
  // timed again at length (TuneOptions::final_top); under a budget, the
  // candidates the time left allows, shared by the tasks' parts of the
  // model's latency.
  if (!result.stopped && top > 0) {
    std::vector<double> part(n, 0);
    for (size_t i = 0; i < n; ++i)
      if (st[i].rounds > 0) part[i] = static_cast<double>(tasks[i].weight) * task_secs(st[i]);
    // Without a budget, the same share of the whole run: the shortlists
    // shrink, to each task's best at least, rather than outlast a short
    // tune (four tasks of a few trials each: 4 s of rounds, 23 s of final
    // measurement).
    const int64_t slots = final_slots(options.tune, budget, seconds_since(t0), final_candidate_s());
    const std::vector<int> tops = shortlist_sizes(part, top, slots, /*least=*/budget > 0 ? 0 : 1);
    for (size_t i = 0; i < n && !asked_to_stop(); ++i) {
      if (st[i].rounds == 0 || tops[i] == 0) continue;
      jobs[i]->final_measurement(tops[i]);
      const std::optional<tuning::TuningRecord> best = jobs[i]->best();
      if (best && best->ok()) st[i].best_secs = best->rank_secs();
    }
    count_internal_errors();
    estimate();
  }
  p.elapsed_s = seconds_since(t0);
  p.eta_s = 0;
  return result;
}

}  // namespace kiln::search
