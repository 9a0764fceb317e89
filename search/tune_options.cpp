#include "search/tune_options.h"

#include <set>

#include "core/error.h"

namespace kiln::search {
namespace {

using nlohmann::json;

// Reads the fields of `j` that `fields` names into their places; any other
// field is an error, so that a misspelt setting is not silently dropped.
class Fields {
 public:
  Fields(const json& j, const char* what) : j_(j), what_(what) {
    if (!j.is_object()) KILN_USER_ERROR() << what_ << ": expected a JSON object, got " << j.dump();
  }
  template <typename T>
  void read(const char* name, T& into) {
    known_.insert(name);
    if (!j_.contains(name)) return;
    try {
      into = j_.at(name).get<T>();
    } catch (const json::exception&) {
      KILN_USER_ERROR() << what_ << ": \"" << name << "\" has the wrong type: " << j_.at(name).dump();
    }
  }
  void no_others() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!known_.count(it.key())) KILN_USER_ERROR() << what_ << ": unknown setting \"" << it.key() << "\"";
  }

 private:
  const json& j_;
  const char* what_;
  std::set<std::string> known_;
};

json timing_json(const rpc::TimingConfig& t) {
  return {{"warmup", t.warmup},         {"warmup_ms", t.warmup_ms},     {"number", t.number},
          {"repeat", t.repeat},         {"min_repeat_ms", t.min_repeat_ms}, {"flush_cache", t.flush_cache},
          {"timeout_ms", t.timeout_ms}, {"threads", t.threads},         {"slow_factor", t.slow_factor}};
}

rpc::TimingConfig timing_from(const json& j) {
  rpc::TimingConfig t = default_tuning_timing();
  Fields f(j, "tune options: \"timing\"");
  f.read("warmup", t.warmup);
  f.read("warmup_ms", t.warmup_ms);
  f.read("number", t.number);
  f.read("repeat", t.repeat);
  f.read("min_repeat_ms", t.min_repeat_ms);
  f.read("flush_cache", t.flush_cache);
  f.read("timeout_ms", t.timeout_ms);
  f.read("threads", t.threads);
  f.read("slow_factor", t.slow_factor);
  f.no_others();
  return t;
}

}  // namespace

rpc::TimingConfig default_tuning_timing() {
  rpc::TimingConfig t;
  t.repeat = 5;
  t.slow_factor = 5;
  return t;
}

json TuneOptions::to_json() const {
  return {{"target", target.str()},
          {"trials", trials},
          {"time_budget_s", time_budget_s},
          {"batch_size", batch_size},
          {"seed", seed},
          {"strategy", strategy},
          {"cost_model", cost_model},
          {"similar_workloads", similar_workloads},
          {"similar_designs", similar_designs},
          {"register_designs", register_designs},
          {"final_top", final_top},
          {"final_repeat", final_repeat},
          {"final_min_repeat_ms", final_min_repeat_ms},
          {"final_share", final_share},
          {"search_share", search_share},
          {"timing", timing_json(timing)}};
}

TuneOptions TuneOptions::from_json(const json& j) {
  TuneOptions o;
  Fields f(j, "tune options");
  std::string target = o.target.str();
  f.read("target", target);
  f.read("trials", o.trials);
  f.read("time_budget_s", o.time_budget_s);
  f.read("batch_size", o.batch_size);
  f.read("seed", o.seed);
  f.read("strategy", o.strategy);
  f.read("cost_model", o.cost_model);
  f.read("similar_workloads", o.similar_workloads);
  f.read("similar_designs", o.similar_designs);
  f.read("register_designs", o.register_designs);
  f.read("final_top", o.final_top);
  f.read("final_repeat", o.final_repeat);
  f.read("final_min_repeat_ms", o.final_min_repeat_ms);
  f.read("final_share", o.final_share);
  f.read("search_share", o.search_share);
  json timing = json::object();
  f.read("timing", timing);
  f.no_others();
  o.target = Target::parse(target);
  o.timing = timing_from(timing);
  o.check();
  return o;
}

void TuneOptions::check() const {
  auto bad = [](const char* what, const auto& value, const char* rule) {
    KILN_USER_ERROR() << "tune options: " << what << " " << value << ": " << rule;
  };
  if (trials < 0) bad("trials", trials, "must not be negative");
  if (time_budget_s < 0) bad("time budget", time_budget_s, "must not be negative");
  if (batch_size <= 0) bad("batch size", batch_size, "must be positive");
  if (strategy != "evolutionary" && strategy != "random") bad("strategy", strategy, "must be evolutionary or random");
  if (similar_workloads < 0 || similar_designs < 0 || register_designs < 0 || final_top < 0)
    bad("a count of designs", std::min({similar_workloads, similar_designs, register_designs, final_top}),
        "must not be negative");
  if (final_repeat <= 0) bad("final repeat", final_repeat, "must be positive");
  if (!(final_share > 0 && final_share <= 1)) bad("final share", final_share, "must be in (0, 1]");
  if (search_share < 0 || search_share >= 1) bad("search share", search_share, "must be in [0, 1)");
  if (timing.repeat <= 0) bad("repeat", timing.repeat, "must be positive");
  if (timing.number <= 0) bad("number", timing.number, "must be positive");
  if (timing.threads < 0) bad("threads", timing.threads, "must not be negative");
  if (timing.slow_factor != 0 && timing.slow_factor < 1)
    bad("slow factor", timing.slow_factor, "must be 0 (time every candidate fully) or at least 1");
  if (timing.timeout_ms <= 0) bad("timeout", timing.timeout_ms, "must be positive (ms)");
}

void ModelArgs::make_cold(TimingOptions& o) const {
  if (o.flush_cache) return;
  o.cold_args = cold_args;
  o.cold_sweep_bytes = cold_sweep_bytes;
}

json ModelArgs::to_json() const {
  json j = json::object();
  if (!constants.empty()) j["constants"] = constants;
  if (!cold_args.empty()) j["cold_args"] = cold_args;
  if (cold_sweep_bytes != 0) j["cold_sweep_bytes"] = cold_sweep_bytes;
  return j;
}

ModelArgs ModelArgs::from_json(const json& j) {
  ModelArgs m;
  Fields f(j, "a task's model arguments");
  f.read("constants", m.constants);
  f.read("cold_args", m.cold_args);
  f.read("cold_sweep_bytes", m.cold_sweep_bytes);
  f.no_others();
  for (const std::vector<int>* positions : {&m.constants, &m.cold_args})
    for (int i : *positions)
      if (i < 0) KILN_USER_ERROR() << "a task's model arguments: parameter position " << i << " is negative";
  if (m.cold_sweep_bytes < 0)
    KILN_USER_ERROR() << "a task's model arguments: cold_sweep_bytes " << m.cold_sweep_bytes << " is negative";
  return m;
}

}  // namespace kiln::search
