#include "search/task_scheduler.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

namespace kiln::search {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A task's time in the model estimate: its best, or untuned until it has one.
double task_secs(const TaskState& s) { return s.best_secs > 0 ? s.best_secs : s.untuned_secs; }

}  // namespace

size_t pick_task(const std::vector<TaskState>& tasks, const std::vector<SchedulerTask>& defs,
                 TaskSchedulerOptions::Policy policy, double alpha, size_t last) {
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
    const double grad = static_cast<double>(defs[i].weight) * (alpha * backward + (1 - alpha) * forward);
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

  const int batch = std::max(1, options.tune.batch_size);
  size_t last = n - 1;
  while (!asked_to_stop()) {
    if (options.trials > 0 && p.trials_now >= options.trials) break;
    if (options.time_budget_s > 0) {
      // The budget bounds the whole run: what the final measurement of the
      // tasks tuned so far will take is kept back for it.
      double final_s = 0;
      for (size_t k = 0; k < n; ++k)
        if (st[k].rounds > 0) final_s += jobs[k]->final_measurement_estimate_s();
      if (seconds_since(t0) + final_s >= options.time_budget_s) break;
    }
    const size_t i = pick_task(st, tasks, options.policy, options.alpha, last);
    if (i == n) break;
    last = i;
    TaskState& s = st[i];
    if (!strategies[i]) strategies[i] = make_strategy(i);

    int64_t more = batch;
    if (options.trials > 0) more = std::min(more, options.trials - p.trials_now);
    if (options.trials_per_task > 0) more = std::min(more, options.trials_per_task - s.trials);
    const int64_t measured = jobs[i]->round(*strategies[i], static_cast<int>(more));

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
  // timed again at length (TuneOptions::final_top).
  if (!result.stopped && options.tune.final_top > 0) {
    for (size_t i = 0; i < n && !asked_to_stop(); ++i) {
      if (st[i].rounds == 0) continue;
      jobs[i]->final_measurement();
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
