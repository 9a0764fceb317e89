#include "search/tuner.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "core/error.h"
#include "core/version.h"
#include "search/space.h"
#include "targets/runtime/check.h"
#include "tir/analysis/workload_key.h"

namespace kiln::search {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bool asked_to_stop(const std::atomic<bool>* stop) { return stop && stop->load(); }

tuning::TuningRecord record_for(const tuning::WorkloadEntry& entry, const std::string& target,
                                const rpc::DeviceInfo& device, const Candidate& c) {
  tuning::TuningRecord r;
  r.workload_key = entry.key;
  r.target = target;
  r.device_key = device.device_key;
  r.cpu_model = device.cpu_model;
  r.trace_json = trace_key(c.trace);
  r.kiln_version = kiln_version();
  r.created_at = static_cast<int64_t>(std::time(nullptr));
  return r;
}

}  // namespace

TuneResult tune(const TuneTask& task, const TuneOptions& o, const TuneServices& services, SearchStrategy& strategy,
                const std::function<void(const TuneProgress&)>& on_progress, const std::atomic<bool>* stop) {
  const auto t0 = Clock::now();
  const tuning::WorkloadEntry& entry = task.entry;
  // Traces are written against the canonical form (blocks b0, b1, ...), the
  // form the database stores, so that a record applies to every function
  // with its workload key, whatever its blocks are called.
  const PrimFunc f = canonical_workload(task.func);
  tuning::Database& db = services.db;
  rpc::Builder& builder = services.builder;
  rpc::Runner& runner = services.runner;
  const std::string target = o.target.str();
  db.add_workload(entry);

  SearchContext ctx{.func = f, .sketches = design_space(f, SpaceParams::for_target(o.target)), .seed = o.seed};
  TuneResult result;
  TuneProgress& p = result.last;
  p.trials_total = o.trials;
  for (const tuning::TuningRecord& r : db.records_of(entry.key, target)) {
    try {
      Trace t = Trace::parse(r.trace_json);
      ctx.measured.insert(t.fingerprint());
      if (r.ok()) ctx.earlier.emplace_back(std::move(t), r.median_secs());
    } catch (const Error&) {
      // Unreadable: it counts as a trial, and no candidate the search makes is it.
    }
    ++p.trials_done;
    p.errors += !r.ok();
  }
  std::stable_sort(ctx.earlier.begin(), ctx.earlier.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  auto best_gflops = [&] {
    std::vector<tuning::TuningRecord> best = db.top_k(entry.key, target, 1);
    return best.empty() ? 0.0 : entry.flops / best[0].median_secs() / 1e9;
  };
  p.best_gflops = best_gflops();

  const rpc::DeviceInfo device = runner.info();
  rpc::BuildResult reference = builder.build({{f, std::nullopt, o.target}}).front();
  if (!reference.ok())
    KILN_USER_ERROR() << entry.shape << ": the default program does not build (" << error_kind_name(reference.error)
                      << "): " << reference.message;
  const double tolerance = check_tolerance(f.params().back().dtype());

  while (p.trials_done < o.trials && !asked_to_stop(stop)) {
    if (o.time_budget_s > 0 && seconds_since(t0) >= o.time_budget_s) break;
    ++p.round;
    auto t = Clock::now();
    const int n = static_cast<int>(std::min<int64_t>(o.batch_size, o.trials - p.trials_done));
    std::vector<Candidate> batch = strategy.propose(ctx, n);
    p.propose_s = seconds_since(t);
    if (batch.empty()) break;  // the space holds nothing new

    t = Clock::now();
    std::vector<rpc::BuildInput> inputs;
    for (const Candidate& c : batch) inputs.push_back({f, c.trace, o.target});
    std::vector<rpc::BuildResult> built = builder.build(inputs);
    p.build_s = seconds_since(t);

    t = Clock::now();
    rpc::MeasureBatch mb;
    mb.timing = o.timing;
    if (p.best_gflops > 0) mb.timing.best_known_s = entry.flops / (p.best_gflops * 1e9);
    mb.references.push_back({entry.key, reference.artifact});
    for (size_t i = 0; i < batch.size(); ++i)
      if (built[i].ok()) mb.candidates.push_back({i, built[i].artifact, built[i].args, entry.key, tolerance});
    std::vector<rpc::MeasureResult> measured = mb.candidates.empty() ? std::vector<rpc::MeasureResult>{}
                                                                     : runner.measure(mb);
    p.measure_s = seconds_since(t);

    std::vector<tuning::TuningRecord> records;
    std::vector<std::optional<double>> secs(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      tuning::TuningRecord r = record_for(entry, target, device, batch[i]);
      r.build_ms = built[i].build_ms;
      r.error_kind = error_kind_name(built[i].error);
      r.error_message = built[i].message;
      records.push_back(std::move(r));
    }
    for (const rpc::MeasureResult& m : measured) {
      tuning::TuningRecord& r = records[m.id];
      r.error_kind = error_kind_name(m.error);
      r.error_message = m.message;
      r.run_secs = m.times_s;
      if (r.ok()) secs[m.id] = r.median_secs();
      p.screened += m.screened;
    }
    db.add_records(records);
    for (const Candidate& c : batch) ctx.measured.insert(c.trace.fingerprint());

    t = Clock::now();
    strategy.update(ctx, batch, secs);
    p.update_s = seconds_since(t);

    result.measured_now += static_cast<int64_t>(batch.size());
    p.trials_done += static_cast<int64_t>(batch.size());
    for (const tuning::TuningRecord& r : records) p.errors += !r.ok();
    p.best_gflops = best_gflops();
    p.failed_draws = ctx.failed_draws;
    p.elapsed_s = seconds_since(t0);
    const double rate = result.measured_now / std::max(p.elapsed_s, 1e-9);
    p.eta_s = std::max<double>(0, o.trials - p.trials_done) / rate;
    if (o.time_budget_s > 0) p.eta_s = std::min(p.eta_s, std::max(0.0, o.time_budget_s - p.elapsed_s));
    if (on_progress) on_progress(p);
  }
  p.elapsed_s = seconds_since(t0);
  result.stopped = asked_to_stop(stop);
  std::vector<tuning::TuningRecord> best = db.top_k(entry.key, target, 1);
  if (!best.empty()) result.best = best[0];
  return result;
}

}  // namespace kiln::search
