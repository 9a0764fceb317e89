#include "farm/job_runner.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "farm/farm_runner.h"
#include "farm/job_queue.h"
#include "rpc/builder.h"
#include "search/progress_json.h"
#include "search/progress_line.h"
#include "search/strategy_by_name.h"
#include "search/task_scheduler.h"
#include "search/tuner.h"
#include "tuning_logs/postgres_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::farm {
namespace {

using Clock = std::chrono::steady_clock;

// Renews the lease every lease/3 seconds on its own connection until
// stopped; sets `stop` when the lease is lost or cancellation is asked for.
class LeaseKeeper {
 public:
  LeaseKeeper(const Job& job, const JobRunnerOptions& o, std::atomic<bool>& stop) : stop_(stop) {
    thread_ = std::thread([this, id = job.id, o] {
      JobQueue q(o.db_url);
      std::unique_lock<std::mutex> lock(mu_);
      while (!done_) {
        cv_.wait_for(lock, std::chrono::duration<double>(o.lease_s / 3));
        if (done_) break;
        bool mine = false;
        try {
          mine = q.renew(id, o.daemon, o.lease_s);
        } catch (const Error&) {
          mine = true;  // the server is unreachable for a moment: the lease may still hold
        }
        if (!mine) {
          lost_or_cancelled_ = true;
          stop_ = true;
        }
      }
    });
  }
  ~LeaseKeeper() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool lost_or_cancelled() const { return lost_or_cancelled_; }

 private:
  std::atomic<bool>& stop_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> lost_or_cancelled_{false};
  std::thread thread_;
};


// Where a job's progress goes: a line for its log and the JSON `kiln job
// status` shows.
using Report = std::function<void(const std::string& line, nlohmann::json progress)>;

std::string internal_errors_text(int64_t n, const std::string& first) {
  return n > 0 ? "; " + std::to_string(n) + " internal error(s) (compiler bugs), the first: " + first : "";
}

// An operators' job: each task in turn to its trials, as `kiln tune-op`
// tunes one. Returns the summary.
std::string tune_in_turn(const JobSpec& s, const search::TuneServices& services, int search_threads,
                         const Report& report, std::atomic<bool>& stop) {
  const auto start = Clock::now();
  double best_gflops = 0;
  int64_t trials = 0, internal_errors = 0;
  std::string first_internal_error;
  for (size_t t = 0; t < s.tasks.size() && !stop; ++t) {
    const tuning::WorkloadEntry& entry = s.tasks[t].entry;
    const std::optional<search::TuneOptions> task_options =
        s.task_options(std::chrono::duration<double>(Clock::now() - start).count());
    if (!task_options) break;
    const search::TuneOptions& opt = *task_options;
    std::unique_ptr<search::SearchStrategy> strategy =
        search::make_strategy(opt.strategy, opt.cost_model, opt.seed, search_threads);
    search::TuneResult r = search::tune({entry, tuning::read_workload_ir(entry.ir_json), s.tasks[t].model}, opt,
                                        services, *strategy,
                                        [&](const search::TuneProgress& p) {
                                          nlohmann::json j = search::progress_json(p);
                                          j["task"] = t + 1;
                                          j["tasks"] = s.tasks.size();
                                          const std::string task = "task " + std::to_string(t + 1) + "/" +
                                                                   std::to_string(s.tasks.size()) + " " + entry.shape;
                                          report(task + ": " + search::progress_line(p), j);
                                        },
                                        &stop);
    trials += r.last.trials_done;
    best_gflops = std::max(best_gflops, r.last.best_gflops);
    if (internal_errors == 0) first_internal_error = r.last.first_internal_error;
    internal_errors += r.last.internal_errors;
  }
  std::ostringstream summary;
  summary << trials << " trials over " << s.tasks.size() << " task(s)";
  if (s.tasks.size() == 1 && best_gflops > 0) summary << ", best " << std::fixed << std::setprecision(1) << best_gflops << " GFLOP/s";
  return summary.str() + internal_errors_text(internal_errors, first_internal_error);
}

// A model's job: the task scheduler shares the trials among its tasks, as
// `kiln tune` does on one machine. Returns the summary.
std::string tune_scheduled(const JobSpec& s, const search::TuneServices& services, int search_threads,
                           const Report& report, std::atomic<bool>& stop) {
  std::vector<search::SchedulerTask> tasks;
  for (const JobTask& t : s.tasks)
    tasks.push_back({{t.entry, tuning::read_workload_ir(t.entry.ir_json), t.model}, t.weight,
                     t.name.empty() ? t.entry.shape : t.name});
  const search::TaskSchedulerOptions o = s.scheduler_options();
  search::SchedulerResult r = search::tune_tasks(
      tasks, o, services,
      [&](size_t) { return search::make_strategy(o.tune.strategy, o.tune.cost_model, o.tune.seed, search_threads); },
      [&](const search::SchedulerProgress& p) { report(search::progress_line(p, tasks), search::progress_json(p, tasks)); },
      &stop);
  std::ostringstream summary;
  summary << r.last.trials_now << " trials over " << tasks.size() << " task(s), " << r.last.tasks_tuned
          << " tuned; model estimate " << std::fixed << std::setprecision(3) << r.last.latency_s * 1e3
          << " ms (untuned " << r.last.untuned_latency_s * 1e3 << " ms)";
  return summary.str() + internal_errors_text(r.last.internal_errors, r.last.first_internal_error);
}

}  // namespace

JobOutcome run_job(const Job& job, const JobRunnerOptions& o, const std::atomic<bool>& shutdown) {
  JobOutcome out;
  std::atomic<bool> stop{false};
  std::unique_ptr<JobQueue> q;
  try {
    q = std::make_unique<JobQueue>(o.db_url);
  } catch (const Error& e) {
    return {JobState::kFailed, e.what(), false, false};
  }
  auto log = [&](const std::string& line) {
    try {
      q->log(job.id, line);
    } catch (const Error&) {
    }
  };
  // Stop when the daemon stops, too.
  std::thread watch_shutdown([&] {
    while (!stop && !shutdown) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (shutdown) stop = true;
  });
  LeaseKeeper lease(job, o, stop);
  try {
    log("claimed by " + o.daemon + (job.attempts > 1 ? " (attempt " + std::to_string(job.attempts) + ", resuming)" : ""));
    const JobSpec& s = job.spec;
    auto db = tuning::open_postgres_database(o.db_url);
    RunnerRegistry registry(o.db_url);
    FarmRunner runner(registry, {.device_key = s.device_key,
                                 .token = o.runner_token,
                                 .tls_ca = o.runner_tls_ca,
                                 .runner_timeout_s = o.runner_timeout_s,
                                 .job = job.id,
                                 .on_wait = log,
                                 .stop = &stop});
    const Target target = s.tune.target;
    rpc::Builder builder({.workers = o.build_workers > 0 ? o.build_workers : std::max(1, target.num_cores())});
    const int search_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    const search::TuneServices services{*db, builder, runner};
    auto report = [&](const std::string& line, nlohmann::json progress) {
      log(line);
      try {
        q->set_progress(job.id, o.daemon, progress);
      } catch (const Error&) {
      }
    };
    out.message = s.schedule ? tune_scheduled(s, services, search_threads, report, stop)
                             : tune_in_turn(s, services, search_threads, report, stop);
    if (runner.resent() > 0)
      out.message += "; " + std::to_string(runner.resent()) + " candidate(s) measured again after their runner was lost";
  } catch (const std::exception& e) {
    if (!stop) {  // a stop ends a wait for runners with an error too: that is no failure
      out.state = JobState::kFailed;
      out.message = e.what();
    }
  }
  stop = true;
  watch_shutdown.join();
  if (lease.lost_or_cancelled()) {
    std::optional<Job> now;
    try {
      now = q->get(job.id);
    } catch (const Error&) {
    }
    if (now && now->cancel_requested && now->daemon == o.daemon) {
      out.state = JobState::kCancelled;
      out.message = "cancelled while running; every measured batch is kept";
    } else {
      out.lost_lease = true;
    }
  } else if (shutdown && out.state != JobState::kFailed) {  // the job did not end: it was stopped
    out.shut_down = true;
  }
  log(out.lost_lease ? "lease lost: another daemon holds the job now"
      : out.shut_down ? "the daemon stops: the job goes back to the queue"
                      : std::string(job_state_name(out.state)) + ": " + out.message);
  return out;
}

}  // namespace kiln::farm
