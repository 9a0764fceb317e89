// kiln bench-op WORKLOAD|KEY [--trace FILE [--postprocess-again] | --db FILE] [--target T] [--threads N] [--repeat R] [--check] [--json]
//                        [--runner ADDR|local [--token T] [--number N] [--min-repeat-ms MS] [--flush-cache]]
//                        [--model M.onnx [--input-shapes S] [--layout L] [--warm-weights]]
//
// Compiles the workload's program (the default one, or the one a trace schedules), runs it on seeded
// random data and reports the median time and GFLOP/s; --check compares the
// output with the reference interpreter.
//
// With --runner, the program is built by the builder and measured by a
// runner (docs/measurement.md): "local" spawns one as a child, an address
// reaches a running `kiln runner`. The runner always checks the output
// against the workload's default program before timing it.
//
// With --model, KEY is one of the model's tasks, timed through a runner as
// `kiln tune` times it (search::ModelArgs): its weights packed beforehand
// and made cold before every run by what an inference touches, so that it
// reads what the tuner read of a model's task.
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <optional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "driver/tune.h"
#include "rpc/builder.h"
#include "rpc/runner/device.h"
#include "rpc/runner_client.h"
#include "tir/analysis/workload_key.h"
#include "tools/commands.h"
#include "tools/tune_session.h"
#include "driver/op_program.h"
#include "tuning_logs/apply_record.h"

namespace kiln::cli {
namespace {

struct Args {
  std::string workload;
  std::string target = "llvm";
  int threads = 0;
  int repeat = kReportSamples;
  bool check = false;
  bool json = false;
  uint64_t seed = 1;
  std::string trace;
  bool postprocess_again = false;
  std::string db;
  std::string runner;
  std::string token;
  std::string tls_ca;
  int number = 1;
  double min_repeat_ms = kReportSampleMs;
  bool flush_cache = false;
  double timeout_ms = 60000;
  std::string model, input_shapes, layout = "nchwc";
  bool warm_weights = false;
};

// What is timed through a runner: the function, what people read of it,
// its FLOPs, and what its model says of its arguments (empty for an
// operator alone).
struct Measured {
  PrimFunc func;
  std::string name;
  double flops = 0;
  search::ModelArgs model;
};

Measured measured_of(const Args& a, const Target& target) {
  if (a.model.empty()) {
    ops::Workload w = ops::parse_workload(a.workload);
    return {ops::build_workload(w), w.str(), ops::workload_flops(w)};
  }
  const ModelProgram m = prepare_model(a.model, a.input_shapes, pass_options(a.layout, target));
  std::string keys;
  for (const search::SchedulerTask& t : model_tasks(m, a.warm_weights)) {
    // In the form the tuner builds it (blocks b0, b1, ...; its name a C
    // identifier), which every record of it applies to.
    if (t.task.entry.key == a.workload)
      return {tuning::stored_form(t.task.func), t.name, t.task.entry.flops, t.task.model};
    keys += (keys.empty() ? "" : ", ") + t.task.entry.key;
  }
  KILN_USER_ERROR() << a.model << " has no task " << a.workload << " for this target and layout (its tasks: " << keys
                    << ")";
}

// How bench-op times a kernel, in this process or at a runner: as kiln
// reports every figure (report_timing, targets/runtime/timing.h), so that
// it reads what the tuner's final measurement read. What it evicts (every
// argument, or a model's weights) only the first run after the eviction
// finds cold, so each sample is then one run, as in the tuner's.
TimingOptions timing_of(const Args& a, const search::ModelArgs& model) {
  TimingOptions o = report_timing(a.repeat);
  o.number = a.number;
  o.min_repeat_ms = a.min_repeat_ms;
  o.flush_cache = a.flush_cache;
  model.make_cold(o);
  if (o.evicts()) {
    o.number = 1;
    o.min_repeat_ms = 0;
  }
  return o;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Builds with the builder and measures through a runner; the JSON it
// prints has the fields of the in-process path, plus the runner's.
void run_on_runner(const Args& a) {
  Target target = Target::parse(a.target);
  int threads = a.threads > 0 ? a.threads : target.num_cores();
  std::ostream& log = std::cerr;
  const Measured w = measured_of(a, target);
  const PrimFunc& f = w.func;
  std::optional<Trace> trace;
  std::optional<StoredTrace> stored;
  if (!a.trace.empty()) trace = read_trace_file(a.trace);
  else if (!a.db.empty() && (stored = best_trace(a.db, f, target))) trace = stored->trace;

  rpc::Builder builder;
  const PrimFunc scheduled_from = stored ? tuning::stored_form(f) : f;
  // The default program is the reference unless --check sends the
  // interpreter's output instead.
  std::vector<rpc::BuildInput> requests = {{scheduled_from, trace, target, w.model.constants}};
  if (!a.check) requests.push_back({f, std::nullopt, target});
  std::vector<rpc::BuildResult> built = builder.build(requests);
  for (const rpc::BuildResult& b : built) {
    if (b.ok()) continue;
    if (stored && b.error == ErrorKind::kInstantiation)
      KILN_USER_ERROR() << stored->origin << ", the best for " << w.name << ", holds a trace that no longer applies: "
                        << b.message;
    KILN_USER_ERROR() << w.name << ": " << error_kind_name(b.error) << " error: " << b.message;
  }
  log << "kiln: " << w.name << " built in " << std::fixed << std::setprecision(1) << built[0].build_ms
      << " ms; measuring through runner " << a.runner << "\n";

  if (a.runner == "local") note_emulation(target);
  std::unique_ptr<rpc::Runner> runner = connect_runner(RunnerAddress{a.runner, a.token, a.tls_ca}, target);
  rpc::MeasureBatch batch;
  static_cast<TimingOptions&>(batch.timing) = timing_of(a, w.model);
  batch.timing.timeout_ms = a.timeout_ms;
  batch.timing.threads = threads;
  batch.timing.seed = a.seed;
  const std::string key = workload_key(f);
  rpc::ReferenceProgram ref;
  if (a.check) {
    // The reference interpreter's output on the inputs the runner makes
    // from the seed: a device of another CPU is checked against it too.
    log << "kiln: checking against the reference interpreter\n";
    const NDArray want = reference_outputs(f, make_arguments(f, a.seed)).back().copy();
    ref = {key + "/interpreter", {}, std::string(static_cast<const char*>(want.data()), want.nbytes())};
  } else {
    ref = {key, built[1].artifact};
  }
  batch.references.push_back(ref);
  batch.candidates.push_back({0, built[0].artifact, built[0].args, ref.id, check_tolerance(f)});
  rpc::MeasureResult r = runner->measure(batch).front();
  if (!r.ok()) {
    std::cerr << "kiln: error: " << w.name << ": " << error_kind_name(r.error) << ": " << r.message << "\n";
    std::exit(1);
  }
  std::vector<double> times;
  for (double t : r.times_s) times.push_back(t * 1e3);
  double med = median(times);
  double gflops = w.flops / (med * 1e-3) / 1e9;
  nlohmann::json out = {{"workload", w.name},
                        {"workload_key", key},
                        {"target", target.str()},
                        {"threads", threads},
                        {"repeat", a.repeat},
                        {"number", r.number},
                        {"median_ms", med},
                        {"gflops", gflops},
                        {"times_ms", times},
                        {"build_ms", built[0].build_ms},
                        {"runner", runner->address()},
                        {"runner_ms", r.runner_ms},
                        {"max_rel_err", r.max_rel_err},
                        {"check_passed", true}};
  if (!a.trace.empty()) out["trace"] = a.trace;
  if (!w.model.empty()) out["model"] = w.model.to_json();
  std::cout << w.name << ": median " << std::defaultfloat << std::setprecision(3) << med << " ms, " << std::fixed
            << std::setprecision(1) << gflops << " GFLOP/s\n";
  std::cout << "check: max relative error against " << (a.check ? "the reference interpreter " : "the default program ")
            << std::scientific << std::setprecision(2) << r.max_rel_err << " ok\n";
  if (a.json) std::cout << out.dump() << "\n";
}

void run(const Args& a) {
  if (!a.model.empty()) {
    if (!is_workload_key(a.workload))
      KILN_USER_ERROR() << "--model times one of the model's tasks: give its workload key (v1-...), not " << a.workload;
    if (a.postprocess_again) KILN_USER_ERROR() << "--postprocess-again is measured in this process; drop --model";
    Args through = a;
    if (through.runner.empty()) through.runner = "local";
    return run_on_runner(through);
  }
  if (!a.runner.empty() && is_workload_key(a.workload))
    KILN_USER_ERROR() << "--runner measures a workload string; a workload key (" << a.workload
                      << ") is measured in this process";
  if (!a.runner.empty() && a.postprocess_again)
    KILN_USER_ERROR() << "--postprocess-again is measured in this process; drop --runner";
  if (!a.runner.empty()) return run_on_runner(a);
  Target target = Target::parse(a.target);
  if (target.is_gpu() || rpc::is_foreign(target)) {
    // Kernels for a GPU, or for another CPU, run on a device a runner has:
    // the local one here (another CPU's emulated).
    if (is_workload_key(a.workload))
      KILN_USER_ERROR() << "a " << (target.is_gpu() ? "GPU target" : "target of another CPU")
                        << " measures a workload string through a runner; a workload key (" << a.workload
                        << ") cannot be";
    Args local = a;
    local.runner = "local";
    return run_on_runner(local);
  }
  int threads = a.threads > 0 ? a.threads : target.num_cores();
  std::ostream& log = std::cerr;

  auto t0 = std::chrono::steady_clock::now();
  PrepareOptions options;
  std::optional<Trace> trace;
  if (!a.trace.empty()) options.trace = &trace.emplace(read_trace_file(a.trace));
  options.db = a.db;
  options.postprocess_again = a.postprocess_again;
  NamedProgram p = prepare_workload_or_key(a.workload, target, options);
  double lower_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<CompiledKernel> kernel = build(p.lowered, target);
  double build_ms = ms_since(t0);
  if (!p.applied.empty()) log << "kiln: applying " << p.applied << "\n";
  log << "kiln: " << p.name << " built in " << std::fixed << std::setprecision(1) << lower_ms + build_ms
      << " ms; timing " << a.repeat << " samples on " << threads << " threads\n";

  std::vector<NDArray> args = make_arguments(p.func, a.seed);
  ThreadPool pool(threads);
  const Timing timing = measure_kernel(*kernel, args, pool, timing_of(a, {}));
  const std::vector<double>& times = timing.ms_per_run;
  double med = median(times);
  double gflops = p.flops / (med * 1e-3) / 1e9;

  nlohmann::json out = {{"workload", p.name},
                        {"workload_key", workload_key(p.func)},
                        {"target", target.str()},
                        {"threads", threads},
                        {"repeat", a.repeat},
                        {"number", timing.number},
                        {"median_ms", med},
                        {"gflops", gflops},
                        {"times_ms", times},
                        {"build_ms", lower_ms + build_ms}};
  if (!a.trace.empty()) out["trace"] = a.trace;
  std::cout << p.name << ": median " << std::defaultfloat << std::setprecision(3) << med << " ms, " << std::fixed
            << std::setprecision(1) << gflops << " GFLOP/s\n";

  bool failed = false;
  if (a.check) {
    log << "kiln: checking against the reference interpreter\n";
    t0 = std::chrono::steady_clock::now();
    std::vector<NDArray> ref = reference_outputs(p.func, make_arguments(p.func, a.seed));
    double err = max_relative_error(args.back(), ref.back());
    double tol = check_tolerance(p.func);
    failed = !(err <= tol);
    out["max_rel_err"] = err;
    out["check_passed"] = !failed;
    std::cout << "check: max relative error " << std::scientific << std::setprecision(2) << err << " (tolerance "
              << tol << ", reference took " << std::fixed << std::setprecision(0) << ms_since(t0) << " ms) "
              << (failed ? "FAILED" : "ok") << "\n";
  }
  if (a.json) std::cout << out.dump() << "\n";
  if (failed) {
    std::cerr << "kiln: error: output differs from the reference interpreter\n";
    std::exit(1);
  }
}

}  // namespace

void add_bench_op(CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("bench-op", "compile a workload (its default program, or as a trace schedules it), time it, check it");
  cmd->add_option("workload", a->workload,
                  "OP:key=value,... (see docs/workloads.md), or with --db a workload key (v1-...) the database "
                  "holds, such as a model's task")
      ->required();
  cmd->add_option("--trace", a->trace, "apply the schedule in this trace file (JSON, docs/schedule_trace.md)");
  cmd->add_option("--db", a->db, "without --trace: apply the best schedule this tuning database holds for the workload and target");
  cmd->add_flag("--postprocess-again", a->postprocess_again,
                "postprocess the trace's design anew, as the search does after a mutation, so that decisions "
                "edited by hand take effect (measured in this process)");
  cmd->add_option("--target", a->target, "target string, e.g. 'llvm -mcpu=skylake-avx512 -num-cores=2'");
  cmd->add_option("--threads", a->threads, "threads for parallel loops (default: the target's cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--repeat", a->repeat, "timed samples, after a quarter of a second of untimed runs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "seed of the random inputs");
  cmd->add_flag("--check", a->check, "compare the output with the reference interpreter");
  cmd->add_flag("--json", a->json, "print one JSON object as the last line of stdout");
  CLI::Option* runner = cmd->add_option("--runner", a->runner,
                  "measure through a runner: 'local' (a child process) or its address (docs/measurement.md)");
  cmd->add_option("--token", a->token, "the runner's token (or set KILN_RUNNER_TOKEN)")->needs(runner);
  cmd->add_option("--tls-ca", a->tls_ca, "PEM file of the CA that signed the runner's certificate (TLS)")->needs(runner);
  cmd->add_option("--number", a->number, "runs per timed sample to start from")->check(CLI::PositiveNumber);
  cmd->add_option("--min-repeat-ms", a->min_repeat_ms, "raise --number until one sample lasts this long")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--flush-cache", a->flush_cache, "evict the arguments from the caches before each sample");
  cmd->add_option("--timeout-ms", a->timeout_ms, "with --runner: limit per candidate")
      ->check(CLI::PositiveNumber)
      ->needs(runner);
  CLI::Option* model = cmd->add_option(
      "--model", a->model,
      "an ONNX model whose task KEY is: time it as kiln tune does, its weights packed once and made cold before every "
      "run (through a runner, 'local' unless --runner)");
  cmd->add_option("--input-shapes", a->input_shapes, "the model's input shapes, as kiln tune takes them")->needs(model);
  cmd->add_option("--layout", a->layout, kLayoutHelp)->needs(model)->capture_default_str();
  cmd->add_flag("--warm-weights", a->warm_weights, "with --model: leave the weights in the caches, as kiln tune --warm-weights")
      ->needs(model);
  cmd->callback([a] { run(*a); });
}

}  // namespace kiln::cli
