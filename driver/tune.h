// Tuning from a front end: what `kiln tune-op`, `kiln tune` and the Python
// package set up around the tuner (search/tuner.h, search/task_scheduler.h)
// so that each starts a job the same way: the database opened by what the
// user typed (a SQLite file or a postgresql:// URL), a builder on the
// target's cores, the runner at an address ("local": a child process), and
// the search its options name.
//
//   search::TuneOptions o{.target = Target::parse("llvm -num-cores=2"), .trials = 64};
//   search::TuneResult r = tune_workload(workload_task(f, "fused"), o, "tuning.db", {});
//   // r.best: the record `kiln bench-op --db tuning.db` compiles
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "driver/model_program.h"
#include "search/task_scheduler.h"
#include "search/tuner.h"

namespace kiln {

// Where candidates are measured: "local" (a runner spawned as a child of
// this process) or a runner's address, with its token (empty:
// $KILN_RUNNER_TOKEN) and the PEM file of the CA that signed its
// certificate (empty: no TLS).
struct RunnerAddress {
  std::string address = "local";
  std::string token;
  std::string tls_ca;
};

// The runner at `r` for kernels of `target`: "local" is a runner spawned as
// this process's child, for the device `target` names (another CPU's: its
// worker emulated, rpc/runner/device.h); a token left empty is
// $KILN_RUNNER_TOKEN. Throws kiln::Error when it cannot be reached.
std::unique_ptr<rpc::Runner> connect_runner(const RunnerAddress& r, const Target& target);

// What people read for a function that no workload string names:
// "fused(float32[64, 32], float32[32, 16]) -> float32[64, 16]".
std::string func_signature(const PrimFunc& f);

// A function tuned on its own: its workload entry (key, IR, what people
// read: `shape`, or its signature when empty; its FLOPs, counted from the
// IR when `flops` is 0).
search::TuneTask workload_task(const PrimFunc& func, const std::string& op, const std::string& shape = "",
                               double flops = 0);

// A workload string of the operator library ("matmul:M=512,N=512,K=512",
// docs/workloads.md). Throws kiln::Error for a malformed one.
search::TuneTask op_task(const std::string& workload);

// A workload string (op_task), or a
// workload key the database at `db` holds (a function defined in Python, a
// model's task): what `kiln tune-op` and kiln.tune_op take. Throws
// kiln::Error for a malformed string, and for a key the database lacks.
search::TuneTask named_task(const std::string& workload, const std::string& db);

// Tunes one workload into the database at `db` (created if missing) until
// it holds o.trials trials on o.target, the time budget is spent or `stop`
// is set. Throws kiln::Error for a database or runner that cannot be
// reached, and for a default program that does not build.
search::TuneResult tune_workload(const search::TuneTask& task, const search::TuneOptions& o, const std::string& db,
                                 const RunnerAddress& runner,
                                 const std::function<void(const search::TuneProgress&)>& on_progress = {},
                                 const std::atomic<bool>* stop = nullptr);

// The bytes one inference of `m` touches: the weights its calls read and
// its arena of intermediate values.
int64_t inference_bytes(const ModelProgram& m);

// A model's tasks as the task scheduler takes them: each with its weight,
// its constants (the weights, timed packed and, unless warm_weights, made
// cold before every run by sweeping inference_bytes(m) through the caches,
// as the rest of an inference would: TimingOptions::cold_sweep_bytes).
std::vector<search::SchedulerTask> model_tasks(const ModelProgram& m, bool warm_weights);

// A model's tasks are tuned to at most this many trials each unless told
// otherwise: `kiln tune --trials-per-task`, `kiln job submit --model
// --trials`, Model.tune(trials_per_task=...).
inline constexpr int64_t kModelTrialsPerTask = 200;

// Tunes a model's tasks into `db` (tuning::open_database), a batch at a
// time where the task scheduler expects the model's latency to drop most.
// o.trials counts this run's trials only.
search::SchedulerResult tune_model(const std::vector<search::SchedulerTask>& tasks,
                                   const search::TaskSchedulerOptions& o, tuning::Database& db,
                                   const std::function<void(const search::SchedulerProgress&)>& on_progress = {},
                                   const std::atomic<bool>* stop = nullptr);

}  // namespace kiln
