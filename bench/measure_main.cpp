// kiln_measure_bench: what measurement costs, beside what it measures.
//
//   kiln_measure_bench [--candidates N] [--repeat R] [--runner local|ADDR] [--out results.json]
//
// For matmul 256^3 and conv2d 64->64 56x56 with their example schedules (the
// AVX-512 or AVX2 form, as the host has):
//  - build: N copies of the candidate through the builder with 1 and with 2
//    worker processes (started beforehand): build ms per candidate (each
//    one's own time in the builder) and the batch's wall time per candidate;
//  - measure: N copies through a runner over gRPC (a local one on a unix
//    socket, or `kiln runner` at ADDR, e.g. on TCP loopback; its reference
//    computed beforehand): the runner's time per candidate beyond the
//    kernel's own runs (warm-up, checked run and number x repeat timed runs),
//    and the client's wall time per candidate beyond the same;
//  - the GFLOP/s the runner reports next to the in-process path's
//    (targets/runtime/timing.h) with the same timing, measured in turn.
#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/guarded_main.h"
#include "core/error.h"
#include "rpc/builder.h"
#include "rpc/runner/device.h"
#include "rpc/runner_client.h"
#include "tir/analysis/workload_key.h"
#include "tir/schedule/schedule.h"
#include "driver/op_program.h"

namespace kiln::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Case {
  std::string workload, trace;
};

int run(int argc, char** argv) {
  int n = 16, repeat = 10;
  std::string out_path, runner_address = "local";
  CLI::App app{"kiln_measure_bench: the cost of building and measuring"};
  app.add_option("--candidates", n, "candidates per batch")->check(CLI::PositiveNumber);
  app.add_option("--repeat", repeat, "timed repeats per candidate (number = 1)")->check(CLI::PositiveNumber);
  app.add_option("--runner", runner_address, "'local' (a child on a unix socket) or a runner's address")
      ->capture_default_str();
  app.add_option("--out", out_path, "write the results as JSON here");
  CLI11_PARSE(app, argc, argv);

  Target target = Target::host();
  const std::string isa = target.vector_lanes(DataType::Float32()) >= 16 ? "avx512" : "avx2";
  std::vector<Case> cases = {
      {"matmul:M=256,N=256,K=256", "examples/schedules/matmul_1024_" + isa + ".json"},
      {"conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1", "examples/schedules/conv2d_nchw_" + isa + ".json"}};
  std::cout << "cpu: " << rpc::cpu_model_name() << " (" << target.mcpu() << ", " << isa << "), target " << target.str()
            << "\n";
  std::unique_ptr<rpc::Runner> runner = rpc::connect_runner(runner_address);
  std::cout << "runner: " << runner->address() << "\n";
  nlohmann::json results = {{"cpu", rpc::cpu_model_name()},
                            {"target", target.str()},
                            {"runner", runner->address()},
                            {"cases", nlohmann::json::array()}};

  for (const Case& c : cases) {
    ops::Workload w = ops::parse_workload(c.workload);
    PrimFunc f = ops::build_workload(w);
    Trace trace = read_trace_file(c.trace);
    nlohmann::json row = {{"workload", w.str()}, {"trace", c.trace}};
    std::cout << w.str() << " with " << c.trace << "\n";

    // Build.
    std::vector<rpc::BuildInput> inputs(static_cast<size_t>(n), rpc::BuildInput{f, trace, target});
    rpc::BuildResult built, reference_built;
    for (int workers : {1, 2}) {
      rpc::Builder builder({workers, 60000, rpc::kiln_binary()});
      builder.build(std::vector<rpc::BuildInput>(static_cast<size_t>(workers), inputs[0]));  // start the workers
      auto t0 = Clock::now();
      std::vector<rpc::BuildResult> rs = builder.build(inputs);
      double wall = ms_since(t0);
      std::vector<double> each;
      for (const auto& r : rs) {
        if (!r.ok()) KILN_USER_ERROR() << "build failed: " << r.message;
        each.push_back(r.build_ms);
      }
      built = rs.front();
      reference_built = builder.build({{f, std::nullopt, target}}).front();
      std::cout << "  build, " << workers << " worker" << (workers > 1 ? "s" : " ") << ": " << std::fixed
                << std::setprecision(1) << median(each) << " ms per candidate (median), batch wall " << wall / n
                << " ms per candidate\n";
      row["build"].push_back({{"workers", workers}, {"median_build_ms", median(each)}, {"wall_ms_per_candidate", wall / n},
                              {"build_ms", each}});
    }

    // Measure through the runner.
    rpc::MeasureBatch batch;
    batch.timing.warmup = 1;
    batch.timing.number = 1;
    batch.timing.repeat = repeat;
    batch.timing.threads = target.num_cores();
    batch.references.push_back({workload_key(f), reference_built.artifact});
    rpc::MeasureInput cand{0, built.artifact, built.args, workload_key(f), check_tolerance(f)};
    batch.candidates = {cand};
    runner->measure(batch);  // computes and caches the reference
    batch.candidates.clear();
    for (int i = 0; i < n; ++i) {
      batch.candidates.push_back(cand);
      batch.candidates.back().id = static_cast<uint64_t>(i);
    }
    auto t0 = Clock::now();
    std::vector<rpc::MeasureResult> rs = runner->measure(batch);
    double wall = ms_since(t0);
    std::vector<double> runner_over, kernel_ms, medians;
    for (const auto& r : rs) {
      if (!r.ok()) KILN_USER_ERROR() << "measurement failed: " << r.message;
      std::vector<double> ms;
      for (double s : r.times_s) ms.push_back(s * 1e3);
      double med = median(ms);
      double own = med * (batch.timing.warmup + 1 + r.number * batch.timing.repeat);
      kernel_ms.push_back(own);
      runner_over.push_back(r.runner_ms - own);
      medians.push_back(med);
    }
    double kernel_total = 0;
    for (double k : kernel_ms) kernel_total += k;
    double client_over = (wall - kernel_total) / n;
    double runner_med = median(medians);
    std::cout << "  runner overhead per candidate beyond the kernel's runs: " << std::setprecision(2)
              << median(runner_over) << " ms in the runner, " << client_over << " ms at the client (gRPC included)\n";

    // In process, same timing.
    std::unique_ptr<CompiledKernel> k = build(lower(apply_trace(trace, f).func(), target), target);
    std::vector<NDArray> args = make_arguments(f, 1);
    ThreadPool pool(target.num_cores());
    TimingOptions o;
    o.warmup = 1;
    o.repeat = repeat;
    std::vector<double> local_meds;
    for (int i = 0; i < n; ++i) local_meds.push_back(median(measure_kernel(*k, args, pool, o).ms_per_run));
    double inproc_med = median(local_meds);
    double flops = ops::workload_flops(w);
    double g_runner = flops / (runner_med * 1e-3) / 1e9, g_inproc = flops / (inproc_med * 1e-3) / 1e9;
    std::cout << "  GFLOP/s: runner " << std::setprecision(1) << g_runner << ", in process " << g_inproc
              << ", runner/in-process " << std::setprecision(3) << g_runner / g_inproc << "\n";
    row["measure"] = {{"candidates", n},
                      {"repeat", repeat},
                      {"runner_overhead_ms_median", median(runner_over)},
                      {"client_overhead_ms_per_candidate", client_over},
                      {"runner_ms", [&] {
                         std::vector<double> v;
                         for (const auto& r : rs) v.push_back(r.runner_ms);
                         return v;
                       }()},
                      {"kernel_median_ms", runner_med},
                      {"gflops_runner", g_runner},
                      {"gflops_in_process", g_inproc},
                      {"runner_over_in_process", g_runner / g_inproc}};
    results["cases"].push_back(row);
  }
  if (!out_path.empty()) {
    std::ofstream(out_path) << results.dump(2) << "\n";
    std::cout << "wrote " << out_path << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_measure_bench", kiln::bench::run, argc, argv); }
