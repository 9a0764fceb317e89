// kiln_search_bench: the search's hot loop, on one core.
//
//   kiln_search_bench [--workload W ...] [--candidates 2048] [--target T] [--out results.json]
//
// For each workload (default: matmul 1024^3 and conv2d 64->64 56x56 3x3),
// draws `candidates` candidates from its design space, then times on this
// thread, each stage over the same candidates:
//  - sample: drawing a candidate (replay of the sketch with fresh decisions,
//    postprocessing included);
//  - replay: rebuilding a candidate from its trace, what mutation and the
//    database's traces cost;
//  - lower: lower_to_loops, the form features are read from, and each of
//    its steps' share;
//  - features: extract_features of the lowered program;
//  - replay+lower+features: the three in turn, candidates per second: the
//    rate at which the evolutionary search can score new programs.
// The population figure is the time of features (lower + extract) for all
// `candidates`, the number the evolutionary search scores per generation.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/guarded_main.h"
#include "core/error.h"
#include "costmodel/features.h"
#include "ops/workload.h"
#include "rpc/runner/device.h"
#include "search/sample.h"
#include "search/space.h"
#include "tir/analysis/workload_key.h"
#include "tir/transform/lower.h"

namespace kiln::bench {
namespace {

using Clock = std::chrono::steady_clock;

double secs_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

nlohmann::json bench_workload(const std::string& text, const Target& target, int n) {
  ops::Workload w = ops::parse_workload(text);
  const PrimFunc f = canonical_workload(ops::build_workload(w));
  std::vector<Trace> sketches = search::design_space(f, search::SpaceParams::for_target(target));
  if (sketches.empty()) KILN_USER_ERROR() << text << ": the design space is empty";

  std::vector<search::Candidate> cands;
  int64_t failed = 0;
  auto t0 = Clock::now();
  for (uint64_t seed = 1; static_cast<int>(cands.size()) < n && seed < static_cast<uint64_t>(16 * n); ++seed) {
    std::optional<search::Candidate> c = search::sample_candidate(f, sketches[seed % sketches.size()], seed);
    if (c) cands.push_back(std::move(*c));
    else ++failed;
  }
  const double sample_s = secs_since(t0);
  const double count = static_cast<double>(cands.size());

  t0 = Clock::now();
  for (const search::Candidate& c : cands)
    if (!search::replay_candidate(f, c.trace)) KILN_USER_ERROR() << text << ": a sampled trace does not replay";
  const double replay_s = secs_since(t0);

  // Each lowering step's share, from the pipeline's own report after every
  // step (LowerOptions::after_pass): which pass a slow space spends on.
  std::vector<std::pair<std::string, double>> pass_s;
  Clock::time_point step_start;
  LowerOptions timed{.verify = false};
  timed.after_pass = [&](const std::string& pass, const PrimFunc&) {
    const Clock::time_point now = Clock::now();
    auto it = std::find_if(pass_s.begin(), pass_s.end(), [&](const auto& p) { return p.first == pass; });
    if (it == pass_s.end()) it = pass_s.insert(pass_s.end(), {pass, 0.0});
    it->second += std::chrono::duration<double>(now - step_start).count();
    step_start = now;
  };
  std::vector<PrimFunc> lowered;
  lowered.reserve(cands.size());
  t0 = Clock::now();
  for (const search::Candidate& c : cands) {
    step_start = Clock::now();
    lowered.push_back(lower_to_loops(c.func, timed));
  }
  const double lower_s = secs_since(t0);

  size_t rows = 0;
  t0 = Clock::now();
  for (const PrimFunc& l : lowered) rows += costmodel::extract_features(l).rows.size();
  const double features_s = secs_since(t0);

  t0 = Clock::now();
  for (const search::Candidate& c : cands) {
    std::optional<search::Candidate> again = search::replay_candidate(f, c.trace);
    rows -= costmodel::extract_features(lower_to_loops(again->func, {.verify = false})).rows.size();
  }
  const double all_s = secs_since(t0);
  if (rows != 0) KILN_USER_ERROR() << text << ": features of a replayed candidate differ in length";

  auto rate = [&](double s) { return count / s; };
  std::cout << std::fixed << std::setprecision(0) << w.str() << ": " << cands.size() << " candidates of "
            << sketches.size() << " sketches (" << failed << " failed draws), per second on one core:\n"
            << "  sample " << rate(sample_s) << ", replay " << rate(replay_s) << ", lower " << rate(lower_s)
            << ", features " << rate(features_s) << "\n"
            << "  replay+lower+features " << rate(all_s) << "\n"
            << "  lower by step (share of its time):";
  nlohmann::json steps = nlohmann::json::object();
  for (const auto& [pass, s] : pass_s) {
    std::cout << " " << pass << " " << std::setprecision(0) << 100 * s / lower_s << "%";
    steps[pass] = s;
  }
  std::cout << "\n"
            << std::setprecision(3) << "  population of " << cands.size() << ": lower + features "
            << lower_s + features_s << " s\n";
  return {{"workload", w.str()},
          {"candidates", cands.size()},
          {"sketches", sketches.size()},
          {"failed_draws", failed},
          {"per_second",
           {{"sample", rate(sample_s)},
            {"replay", rate(replay_s)},
            {"lower", rate(lower_s)},
            {"features", rate(features_s)},
            {"replay_lower_features", rate(all_s)}}},
          {"lower_steps_s", steps},
          {"population_features_s", lower_s + features_s}};
}

int run(int argc, char** argv) {
  std::vector<std::string> workloads = {"matmul:M=1024,N=1024,K=1024",
                                        "conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"};
  int n = 2048;
  std::string target_text = "llvm", out_path;
  CLI::App app{"kiln_search_bench: replay, lowering and features per second on one core"};
  app.add_option("--workload", workloads, "workloads")->capture_default_str();
  app.add_option("--candidates", n, "candidates per workload")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--target", target_text, "the target whose design space is drawn from")->capture_default_str();
  app.add_option("--out", out_path, "write the results as JSON here");
  CLI11_PARSE(app, argc, argv);

  const Target target = Target::parse(target_text);
  std::cout << "cpu: " << rpc::cpu_model_name() << " (" << Target::host().mcpu() << "), target " << target.str()
            << "\n";
  nlohmann::json out = {{"cpu", rpc::cpu_model_name()}, {"mcpu", Target::host().mcpu()}, {"target", target.str()}};
  for (const std::string& w : workloads) out["workloads"].push_back(bench_workload(w, target, n));
  if (!out_path.empty()) std::ofstream(out_path) << out.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_search_bench", kiln::bench::run, argc, argv); }
