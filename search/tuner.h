// The tune loop of one workload on one target: propose a batch, build it,
// measure it (checked against the default program), store it, learn, again,
// until the trial or time budget is spent or a stop is asked for.
//
//   rpc::Builder builder;
//   auto runner = rpc::connect_runner("local");
//   TuneOptions o{.target = t, .trials = 1000};
//   TuneResult r = tune({entry, f}, o, {db, builder, *runner}, strategy, progress_fn, &stop);
//
// Every candidate is built by the builder and measured by the runner
// (rpc/), and every batch goes into the database in one transaction,
// failures included. A job on a database that already holds records of the
// workload and target resumes: their trials count, their traces are not
// measured again, and their best is the best to beat. At its end, its best
// records are timed again at length (TuneOptions::final_top): the best of
// many short measurements is biased low, and this says what the winner
// really runs at. The best designs of
// other workloads of the same operator in the database are carried over
// and measured first (transfer.h).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "rpc/builder.h"
#include "rpc/runner_client.h"
#include "search/strategy.h"
#include "search/tune_options.h"
#include "targets/target.h"
#include "tuning_logs/database.h"

namespace kiln::search {

// What is tuned.
struct TuneTask {
  tuning::WorkloadEntry entry;
  PrimFunc func;  // unscheduled; tuned in its canonical form (workload_key.h), as the database keeps it
  ModelArgs model = {};  // a model's task: its weights, timed packed and cold; empty alone
};

// Where candidates are built, measured and kept.
struct TuneServices {
  tuning::Database& db;
  rpc::Builder& builder;
  rpc::Runner& runner;
};

// Where a job stands, after each batch.
struct TuneProgress {
  int round = 0;
  int64_t trials_done = 0;  // this workload and target, earlier runs included
  int64_t trials_total = 0;
  int64_t errors = 0;       // failed candidates, earlier runs included
  // Candidates of this run whose build or run met a compiler bug
  // (ErrorKind::kInternal), among `errors`, and the first one's message:
  // front ends show them and fail at the end.
  int64_t internal_errors = 0;
  std::string first_internal_error;
  int64_t screened = 0;     // this run's candidates timed once: far slower than the best (rpc/measure.h)
  int64_t carried_over = 0; // designs of similar workloads carried over to this run so far (transfer.h)
  int64_t register_designs = 0; // designs with register tiles sized from the target (register_designs.h)
  // The best first measurement while tuning; in the report after the final
  // measurement, the best record as the database ranks it. 0: none valid yet.
  double best_gflops = 0;
  int64_t final_measured = 0;  // records timed again at the end (TuneOptions::final_top); set last
  double elapsed_s = 0;     // this run
  double eta_s = 0;         // from this run's rate; 0 when unknown
  // Where this round's time went, in seconds.
  double propose_s = 0, build_s = 0, measure_s = 0, update_s = 0;
  // Draws and mutations of this run that made no candidate, by failure kind
  // (SearchContext::failed_draws): a space that keeps failing says so.
  std::map<ScheduleErrorKind, int64_t> failed_draws;
};

struct TuneResult {
  TuneProgress last;
  int64_t measured_now = 0;  // trials of this run
  std::optional<tuning::TuningRecord> best;
  bool stopped = false;      // stop was asked for
};

// One workload's tuning, a round at a time. tune() runs one to its
// budget; the task scheduler (task_scheduler.h) keeps one per task and
// gives it a round when the task's turn comes. What every round needs (the
// canonical function and its design space, the traces measured, the
// default program built once as the reference outputs are checked
// against) is set up once, when the job starts, not once per round.
class TuneJob {
 public:
  // What candidates are checked against: the default program.
  struct Reference {
    std::string id;  // the workload key
    Artifact artifact;
    double tolerance = 0;
  };

  // Reads what the database holds for the workload and target, makes the
  // design space, the designs carried over and the register designs, and
  // builds the default program. Throws kiln::Error when that does not build.
  TuneJob(const TuneTask& task, const TuneOptions& options, const TuneServices& services);

  // Proposes, builds, measures and stores one batch of at most n
  // candidates, and trains the strategy on it. Returns how many were
  // measured: 0 when the space holds nothing new.
  int64_t round(SearchStrategy& strategy, int n);

  // Seconds one run of the default program takes (the median of the
  // runner's repeats): the untuned time a model's tuning compares with. 0
  // when it fails to run.
  double time_default_program();

  // The final measurement: the shortlist, the `top` records fastest by
  // their first measurement (at most TuneOptions::final_top: final_slots
  // says how many), timed again at length. Returns how many records were.
  int64_t final_measurement(int top);
  // Roughly what the final measurement of final_top records would take
  // now: the shortlist built
  // again at this run's mean build time and timed in its passes, each
  // candidate warmed for kWarmFor first. What a time budget keeps back
  // for it, so that the budget bounds the whole run. 0 before any round.
  double final_measurement_estimate_s() const;
  // The same for one candidate of the shortlist.
  double final_candidate_estimate_s() const;

  // The record the database ranks first, if any.
  std::optional<tuning::TuningRecord> best() const;

  // Where the job stands (eta_s is the caller's: it knows the budget).
  const TuneProgress& progress() const { return p_; }
  TuneProgress& progress() { return p_; }

 private:
  void note_best(double secs);
  // ctx_.similar from what the database holds now (transfer.h).
  void carry_over_similar();

  tuning::WorkloadEntry entry_;
  std::vector<int> constants_;
  TuneOptions o_;
  TuneServices s_;
  std::string target_;
  std::chrono::steady_clock::time_point start_;
  SearchContext ctx_;
  rpc::DeviceInfo device_;
  rpc::BuildResult default_build_;
  Reference reference_;
  TuneProgress p_;
  // The best first measurement while tuning: what each new candidate's
  // own measurement compares with (screening among them).
  double best_secs_ = 0;
  // This run's builds: seconds and candidates, for the estimate above.
  double built_s_ = 0;
  int64_t built_n_ = 0;
  // Fingerprints of the designs carried over so far: progress's count.
  std::unordered_set<uint64_t> carried_;
};

// What the final measurement may take (TuneOptions::final_share), the one
// rule for an operator's job and a model's tasks. Under a budget of
// `budget_s`, the run keeps back the share of it or `full_s`, what the
// whole shortlists would take, whichever is less; the records timed again
// are those that fit in what is left at the end.
double final_reserve_s(const TuneOptions& o, double budget_s, double full_s);
// How many records of `candidate_s` seconds each the final measurement
// may time after `run_s` seconds of rounds: under a budget of `budget_s`,
// those that fit in what is left of it; without one (0), those that fit in
// the share of the whole run (its rounds and the final measurement), where
// the callers time each job's best even when none fits.
int64_t final_slots(const TuneOptions& o, double budget_s, double run_s, double candidate_s);

// Runs a TuneJob until the workload has options.trials trials (earlier runs
// included), the time budget (less final_reserve_s) is spent or `stop` is
// set, then (unless stopped) its final measurement: final_top records at
// most, as many as final_slots allows, its best at least.
TuneResult tune(const TuneTask& task, const TuneOptions& options, const TuneServices& services,
                SearchStrategy& strategy, const std::function<void(const TuneProgress&)>& on_progress = {},
                const std::atomic<bool>* stop = nullptr);

}  // namespace kiln::search
