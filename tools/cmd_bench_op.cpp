// kiln bench-op WORKLOAD [--trace FILE] [--target T] [--threads N] [--repeat R] [--check] [--json]
//
// Compiles the workload's program (the default one, or the one a trace schedules), runs it on seeded
// random data and reports the median time and GFLOP/s; --check compares the
// output with the reference interpreter.
#include <chrono>
#include <iomanip>
#include <optional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tir/analysis/workload_key.h"
#include "tools/commands.h"
#include "tools/op_session.h"

namespace kiln::cli {
namespace {

struct Args {
  std::string workload;
  std::string target = "llvm";
  int threads = 0;
  int repeat = 10;
  bool check = false;
  bool json = false;
  uint64_t seed = 1;
  std::string trace;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run(const Args& a) {
  Target target = Target::parse(a.target);
  int threads = a.threads > 0 ? a.threads : target.num_cores();
  std::ostream& log = std::cerr;

  auto t0 = std::chrono::steady_clock::now();
  PrepareOptions options;
  std::optional<Trace> trace;
  if (!a.trace.empty()) options.trace = &trace.emplace(read_trace_file(a.trace));
  OpProgram p = prepare_op(a.workload, target, options);
  double lower_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<CompiledKernel> kernel = build_llvm(p.lowered, target);
  double build_ms = ms_since(t0);
  log << "kiln: " << p.workload.str() << " built in " << std::fixed << std::setprecision(1) << lower_ms + build_ms
      << " ms; running " << a.repeat << " times on " << threads << " threads\n";

  std::vector<NDArray> args = make_arguments(p.func, a.seed);
  ThreadPool pool(threads);
  std::vector<double> times = time_kernel(*kernel, args, pool, a.repeat);
  double med = median(times);
  double gflops = ops::workload_flops(p.workload) / (med * 1e-3) / 1e9;

  nlohmann::json out = {{"workload", p.workload.str()},
                        {"workload_key", workload_key(p.func)},
                        {"target", target.str()},
                        {"threads", threads},
                        {"repeat", a.repeat},
                        {"median_ms", med},
                        {"gflops", gflops},
                        {"times_ms", times},
                        {"build_ms", lower_ms + build_ms}};
  if (!a.trace.empty()) out["trace"] = a.trace;
  std::cout << p.workload.str() << ": median " << std::setprecision(3) << med << " ms, " << std::setprecision(2)
            << gflops << " GFLOP/s\n";

  bool failed = false;
  if (a.check) {
    log << "kiln: checking against the reference interpreter\n";
    t0 = std::chrono::steady_clock::now();
    std::vector<NDArray> ref = reference_outputs(p.func, make_arguments(p.func, a.seed));
    double err = max_relative_error(args.back(), ref.back());
    double tol = check_tolerance(p.workload.dtype);
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
  cmd->add_option("workload", a->workload, "OP:key=value,... (see docs/workloads.md)")->required();
  cmd->add_option("--trace", a->trace, "apply the schedule in this trace file (JSON, docs/schedule_trace.md)");
  cmd->add_option("--target", a->target, "target string, e.g. 'llvm -mcpu=skylake-avx512 -num-cores=2'");
  cmd->add_option("--threads", a->threads, "threads for parallel loops (default: the target's cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--repeat", a->repeat, "timed runs (after one warm-up)")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", a->seed, "seed of the random inputs");
  cmd->add_flag("--check", a->check, "compare the output with the reference interpreter");
  cmd->add_flag("--json", a->json, "print one JSON object as the last line of stdout");
  cmd->callback([a] { run(*a); });
}

}  // namespace kiln::cli
