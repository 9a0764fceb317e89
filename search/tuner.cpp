#include "search/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "core/error.h"
#include "core/version.h"
#include "search/register_designs.h"
#include "search/space.h"
#include "search/transfer.h"
#include "targets/runtime/check.h"
#include "targets/runtime/timing.h"
#include "tuning_logs/apply_record.h"
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

using Reference = TuneJob::Reference;

// Measures the candidates that built (built[i] for trace i), checked
// against the reference; results by index into `built`.
std::vector<rpc::MeasureResult> measure_built(rpc::Runner& runner, const std::vector<rpc::BuildResult>& built,
                                              const Reference& ref, const rpc::TimingConfig& timing) {
  rpc::MeasureBatch mb;
  mb.timing = timing;
  mb.references.push_back({ref.id, ref.artifact});
  for (size_t i = 0; i < built.size(); ++i)
    if (built[i].ok()) mb.candidates.push_back({i, built[i].artifact, built[i].args, ref.id, ref.tolerance});
  return mb.candidates.empty() ? std::vector<rpc::MeasureResult>{} : runner.measure(mb);
}

// The final measurement: the shortlist, the `top` records fastest by
// their first measurement, built again and those without a final
// measurement timed at length, in kFinalPasses passes over the whole
// shortlist, each taking its share of every candidate's repeats. This VM
// class runs at one speed for seconds and then at another (resnet18 read
// 19.5 ms and 23 ms minutes apart); timed one after the other, a
// candidate whose samples all fell in a slow spell lost to one timed just
// before it. In passes, a spell slows a share of each candidate's samples,
// which the median passes over. Returns how many were timed.
constexpr int kFinalPasses = 3;

// Counts a compiler bug met by one candidate (core/error_kind.h).
void note_internal(TuneProgress& p, ErrorKind kind, const std::string& message) {
  if (kind != ErrorKind::kInternal) return;
  if (p.internal_errors++ == 0) p.first_internal_error = message;
}

int64_t measure_shortlist(const PrimFunc& f, const std::vector<int>& constants, const tuning::WorkloadEntry& entry,
                          const TuneOptions& o, int top, const TuneServices& s, const Reference& ref,
                          TuneProgress& p) {
  std::vector<tuning::TuningRecord> valid;
  for (tuning::TuningRecord& r : s.db.records_of(entry.key, o.target.str()))
    if (r.ok()) valid.push_back(std::move(r));
  std::stable_sort(valid.begin(), valid.end(),
                   [](const auto& a, const auto& b) { return a.median_secs() < b.median_secs(); });
  std::vector<tuning::TuningRecord> todo;
  for (size_t i = 0; i < valid.size() && i < static_cast<size_t>(top); ++i)
    if (valid[i].final_secs.empty()) todo.push_back(std::move(valid[i]));
  if (todo.empty()) return 0;
  rpc::TimingConfig timing = o.timing;
  static_cast<TimingOptions&>(timing) = report_timing();
  timing.flush_cache = o.timing.flush_cache;
  timing.cold_args = o.timing.cold_args;
  timing.cold_sweep_bytes = o.timing.cold_sweep_bytes;
  int repeats = std::max(o.final_repeat, 1);
  timing.min_repeat_ms = o.final_min_repeat_ms;
  if (timing.evicts()) {  // every sample one cold run: more of them, none raised
    repeats *= 3;
    timing.min_repeat_ms = 0;
  }
  timing.repeat = (repeats + kFinalPasses - 1) / kFinalPasses;
  // report_timing runs each candidate untimed for kWarmFor first, in every
  // pass, as kiln_bench and kiln run warm up: the shortlist is timed right
  // after it was built on every core, a few candidates briefly, where a
  // round times dozens. (In one 200-trial tune of resnet18 224², a 3x3
  // convolution read 1.1 ms in its rounds and in the model, and 2.2 ms in
  // all 30 of its final samples, timed in one pass without the warm-up; a
  // 16-trial tune on the same machine kept every final sample of its
  // larger kernels within 0.76-1.09x of the first.)
  timing.slow_factor = 0;
  timing.best_known_s = 0;
  std::vector<rpc::BuildInput> inputs;
  for (const tuning::TuningRecord& r : todo) inputs.push_back({f, tuning::record_trace(r), o.target, constants});
  // A candidate that no longer builds (a build timeout on a busy machine)
  // is left as it was: its first measurement stands. One that fails in a
  // pass is a failed record, and the later passes leave it out.
  std::vector<rpc::BuildResult> built = s.builder.build(inputs);
  std::vector<bool> timed(todo.size(), false);
  for (int pass = 0; pass < kFinalPasses; ++pass) {
    for (const rpc::MeasureResult& m : measure_built(s.runner, built, ref, timing)) {
      s.db.add_final_measurement(todo[m.id].id, m.ok() ? m.times_s : std::vector<double>{}, m.error, m.message);
      timed[m.id] = true;
      if (!m.ok()) built[m.id].error = m.error;
      note_internal(p, m.error, m.message);
    }
  }
  return std::count(timed.begin(), timed.end(), true);
}

// A runner none of whose devices runs the target would turn every trial
// into an unsupported_target record: say so before the first.
void require_device_for(const Target& target, const rpc::DeviceInfo& device) {
  std::string runs;
  for (const std::string& t : device.targets) {
    try {
      if (target.cannot_run_on(Target::parse(t)).empty()) return;
    } catch (const Error&) {
      // A target string this kiln cannot read: not one it can use.
    }
    runs += (runs.empty() ? "" : ", ") + t;
  }
  KILN_USER_ERROR() << "no device of the runner runs target '" << target.str() << "' (it runs " << runs
                    << "); tune on a runner with such a device";
}

}  // namespace

TuneJob::TuneJob(const TuneTask& task, const TuneOptions& options, const TuneServices& services)
    : entry_(task.entry),
      constants_(task.model.constants),
      o_(options),
      s_(services),
      target_(options.target.str()),
      start_(Clock::now()),
      ctx_{.func = tuning::stored_form(task.func), .seed = options.seed} {
  task.model.make_cold(o_.timing);
  // Traces are written against the canonical form (blocks b0, b1, ...), the
  // form the database stores, so that a record applies to every function
  // with its workload key, whatever its blocks are called.
  const PrimFunc& f = ctx_.func;
  ctx_.sketches = design_space(f, SpaceParams::for_target(o_.target));
  tuning::Database& db = s_.db;
  db.add_workload(entry_);
  p_.trials_total = o_.trials;
  for (const tuning::TuningRecord& r : db.records_of(entry_.key, target_)) {
    try {
      Trace t = tuning::record_trace(r);
      ctx_.measured.insert(t.fingerprint());
      if (r.ok()) ctx_.earlier.emplace_back(std::move(t), r.median_secs());
    } catch (const Error&) {
      // Unreadable: it counts as a trial, and no candidate the search makes is it.
    }
    ++p_.trials_done;
    p_.errors += !r.ok();
  }
  for (const auto& [trace, secs] : ctx_.earlier) note_best(secs);
  if (o_.register_designs > 0)
    ctx_.register_designs =
        register_designs(f, ctx_.sketches, o_.seed, static_cast<size_t>(o_.register_designs), constants_);
  p_.register_designs = static_cast<int64_t>(ctx_.register_designs.size());
  std::stable_sort(ctx_.earlier.begin(), ctx_.earlier.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });

  device_ = s_.runner.info();
  require_device_for(o_.target, device_);
  default_build_ = s_.builder.build({{f, std::nullopt, o_.target}}).front();
  if (!default_build_.ok())
    KILN_USER_ERROR() << entry_.shape << ": the default program does not build ("
                      << error_kind_name(default_build_.error) << "): " << default_build_.message;
  reference_ = Reference{entry_.key, default_build_.artifact, check_tolerance(f)};
}

void TuneJob::note_best(double secs) {
  if (secs > 0 && (best_secs_ == 0 || secs < best_secs_)) best_secs_ = secs;
  p_.best_gflops = best_secs_ > 0 ? entry_.flops / best_secs_ / 1e9 : 0;
}

double TuneJob::time_default_program() {
  rpc::TimingConfig timing = o_.timing;
  timing.best_known_s = 0;
  std::vector<rpc::MeasureResult> m = measure_built(s_.runner, {default_build_}, reference_, timing);
  if (m.empty() || !m[0].ok() || m[0].times_s.empty()) return 0;
  return median(m[0].times_s);
}

// Read again every round: the tasks of a model tune one after another
// into one database, so a task's siblings (its conv+relu for its
// conv+add+relu, the same layer at another stage) have records by its
// second round that they had not at its first.
void TuneJob::carry_over_similar() {
  if (o_.similar_workloads <= 0 || entry_.flops <= 0) return;
  ctx_.similar = similar_designs(s_.db, entry_, ctx_.func, ctx_.sketches, target_, o_.similar_workloads,
                                 o_.similar_designs);
  for (const Trace& t : ctx_.similar) carried_.insert(t.fingerprint());
  p_.carried_over = static_cast<int64_t>(carried_.size());
}

int64_t TuneJob::round(SearchStrategy& strategy, int n) {
  TuneProgress& p = p_;
  ++p.round;
  auto t = Clock::now();
  carry_over_similar();
  std::vector<Candidate> batch = strategy.propose(ctx_, n);
  p.propose_s = seconds_since(t);
  if (batch.empty()) return 0;  // the space holds nothing new

  t = Clock::now();
  std::vector<rpc::BuildInput> inputs;
  for (const Candidate& c : batch) inputs.push_back({ctx_.func, c.trace, o_.target, constants_});
  std::vector<rpc::BuildResult> built = s_.builder.build(inputs);
  p.build_s = seconds_since(t);
  built_s_ += p.build_s;
  built_n_ += static_cast<int64_t>(batch.size());

  t = Clock::now();
  rpc::TimingConfig timing = o_.timing;
  timing.best_known_s = best_secs_;
  std::vector<rpc::MeasureResult> measured = measure_built(s_.runner, built, reference_, timing);
  p.measure_s = seconds_since(t);

  std::vector<tuning::TuningRecord> records;
  std::vector<std::optional<double>> secs(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    tuning::TuningRecord r = record_for(entry_, target_, device_, batch[i]);
    r.build_ms = built[i].build_ms;
    r.error_kind = built[i].error;
    r.error_message = built[i].message;
    records.push_back(std::move(r));
  }
  for (const rpc::MeasureResult& m : measured) {
    tuning::TuningRecord& r = records[m.id];
    r.error_kind = m.error;
    r.error_message = m.message;
    r.run_secs = m.times_s;
    if (r.ok()) secs[m.id] = r.median_secs();
    p.screened += m.screened;
  }
  s_.db.add_records(records);
  for (const Candidate& c : batch) ctx_.measured.insert(c.trace.fingerprint());

  t = Clock::now();
  strategy.update(ctx_, batch, secs);
  p.update_s = seconds_since(t);
  if (o_.search_share > 0)
    ctx_.search_budget_s =
        std::max(1e-3, o_.search_share / (1 - o_.search_share) * (p.build_s + p.measure_s) - p.update_s);

  p.trials_done += static_cast<int64_t>(batch.size());
  for (const tuning::TuningRecord& r : records) {
    p.errors += !r.ok();
    note_internal(p, r.error_kind, r.error_message);
  }
  for (const std::optional<double>& sec : secs) note_best(sec.value_or(0));
  p.failed_draws = ctx_.failed_draws;
  p.elapsed_s = seconds_since(start_);
  return static_cast<int64_t>(batch.size());
}

int64_t TuneJob::final_measurement(int top) {
  if (top <= 0) return 0;
  p_.final_measured = measure_shortlist(ctx_.func, constants_, entry_, o_, top, s_, reference_, p_);
  std::optional<tuning::TuningRecord> b = best();
  if (p_.final_measured > 0 && b) p_.best_gflops = entry_.flops / b->rank_secs() / 1e9;  // the best as timed again
  p_.elapsed_s = seconds_since(start_);
  return p_.final_measured;
}

double TuneJob::final_measurement_estimate_s() const {
  return static_cast<double>(std::max(o_.final_top, 0)) * final_candidate_estimate_s();
}

double TuneJob::final_candidate_estimate_s() const {
  if (built_n_ == 0) return 0;
  const double build_each = built_s_ / static_cast<double>(built_n_);
  // Each pass warms each candidate for kWarmFor and times it for about as long.
  const double timing_each = kFinalPasses * 2 * std::chrono::duration<double>(kWarmFor).count();
  return build_each + timing_each;
}

std::optional<tuning::TuningRecord> TuneJob::best() const {
  std::vector<tuning::TuningRecord> top = s_.db.top_k(entry_.key, target_, 1);
  if (top.empty()) return std::nullopt;
  return top[0];
}

double final_reserve_s(const TuneOptions& o, double budget_s, double full_s) {
  return std::min(o.final_share * budget_s, full_s);
}

int64_t final_slots(const TuneOptions& o, double budget_s, double run_s, double candidate_s) {
  constexpr int64_t kAll = int64_t{1} << 40;
  if (candidate_s <= 0 || (budget_s <= 0 && o.final_share >= 1)) return kAll;
  const double allowed_s =
      budget_s > 0 ? std::max(0.0, budget_s - run_s) : o.final_share / (1 - o.final_share) * run_s;
  return static_cast<int64_t>(std::min(std::floor(allowed_s / candidate_s), static_cast<double>(kAll)));
}

TuneResult tune(const TuneTask& task, const TuneOptions& o, const TuneServices& services, SearchStrategy& strategy,
                const std::function<void(const TuneProgress&)>& on_progress, const std::atomic<bool>* stop) {
  const auto t0 = Clock::now();
  TuneJob job(task, o, services);
  TuneResult result;
  while (job.progress().trials_done < o.trials && !asked_to_stop(stop)) {
    if (o.time_budget_s > 0 &&
        seconds_since(t0) + final_reserve_s(o, o.time_budget_s, job.final_measurement_estimate_s()) >= o.time_budget_s)
      break;
    const int n = static_cast<int>(std::min<int64_t>(o.batch_size, o.trials - job.progress().trials_done));
    const int64_t measured = job.round(strategy, n);
    if (measured == 0) break;
    result.measured_now += measured;
    TuneProgress& p = job.progress();
    const double rate = static_cast<double>(result.measured_now) / std::max(p.elapsed_s, 1e-9);
    p.eta_s = static_cast<double>(std::max<int64_t>(0, o.trials - p.trials_done)) / rate;
    if (o.time_budget_s > 0) p.eta_s = std::min(p.eta_s, std::max(0.0, o.time_budget_s - p.elapsed_s));
    if (on_progress) on_progress(p);
  }
  result.stopped = asked_to_stop(stop);
  int64_t slots = final_slots(o, o.time_budget_s, seconds_since(t0), job.final_candidate_estimate_s());
  if (o.time_budget_s <= 0) slots = std::max<int64_t>(slots, 1);  // the best, whatever it costs
  const int top = static_cast<int>(std::min<int64_t>(o.final_top, slots));
  if (!result.stopped && job.final_measurement(top) > 0 && on_progress) {
    job.progress().eta_s = 0;
    on_progress(job.progress());  // the last report: the best as timed again
  }
  result.best = job.best();
  result.last = job.progress();
  result.last.elapsed_s = seconds_since(t0);
  return result;
}

}  // namespace kiln::search
