// How one workload is tuned: the one description of a tuning run's policy
// (budget, search, measurement, final measurement), whichever front end
// starts it. `kiln tune-op`, `kiln tune` (each of a model's tasks) and a
// farm job (whose spec embeds it as JSON, farm/job.h) fill the same struct
// from the same flags (tools/tune_flags.h), so a kernel is measured the
// same way however it was asked for. The defaults are written here only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rpc/measure.h"
#include "targets/target.h"

namespace kiln::search {

// The measurement a tuning run asks of its runner: five timed repeats of
// each candidate after a warm-up, a candidate five times slower than the
// best known timed once (rpc/measure.h, docs/measurement.md).
rpc::TimingConfig default_tuning_timing();

struct TuneOptions {
  Target target = Target::host();
  int64_t trials = 64;         // the total the workload should have, earlier runs included
  double time_budget_s = 0;    // 0: no limit
  int batch_size = 64;
  uint64_t seed = 1;
  // The search (search/strategy_by_name.h): evolutionary or random, and
  // the evolutionary search's cost model (xgb, random, or a model file).
  std::string strategy = "evolutionary";
  std::string cost_model = "xgb";
  // Seeds from similar workloads (transfer.h): the best designs of up to
  // this many other workloads of the same operator (its anchor, for a
  // fused task) in the database, the most alike first, top
  // similar_designs of each, read again every round. 0: none.
  int similar_workloads = 4;
  int similar_designs = 4;
  // Designs with register tiles sized from the target (register_designs.h),
  // measured in the first batch. 0: none.
  int register_designs = 16;
  // The final measurement: at the end of a job (not one stopped), its
  // shortlist, the final_top records fastest by their first measurement,
  // is built again and timed as kiln reports every figure (report_timing,
  // targets/runtime/timing.h), in three passes over it, each taking a
  // third of final_repeat samples of every candidate, each sample at least
  // final_min_repeat_ms long; the database then ranks the records timed
  // again first, by that (tuning::TuningRecord::final_secs), and it is the
  // figure tune-op shows and bench-op reads again. 0: none.
  int final_top = 5;
  int final_repeat = kReportSamples;            // targets/runtime/timing.h: the figure kiln reports
  double final_min_repeat_ms = kReportSampleMs;
  // The most of a run the final measurement takes: under a time budget,
  // this share of the budget; without one, of the whole run (its rounds
  // and itself), the shortlist shrinking to the best record (each task's,
  // in a model) whatever that costs, so that a tune of a few trials does
  // not spend five times its rounds timing them again (final_slots in
  // tuner.h). 1: the whole shortlist, whatever it costs.
  double final_share = 0.15;
  // The share of a round the search and its model aim to take at most:
  // each propose may evolve for share / (1 - share) of the last round's
  // build and measurement time, less that round's model update
  // (SearchContext::search_budget_s), always at least one generation. A
  // workload whose candidates build in a blink gets fewer generations,
  // not a search that outweighs its measurements. 0: no limit.
  double search_share = 0.18;
  // best_known_s is the tuner's: each batch carries the best so far.
  rpc::TimingConfig timing = default_tuning_timing();

  // Every field, the target as its canonical string.
  nlohmann::json to_json() const;
  // The fields `j` holds over the defaults above. Throws kiln::Error naming
  // a field of the wrong type, out of range, or unknown.
  static TuneOptions from_json(const nlohmann::json& j);
  // Throws kiln::Error naming the first setting out of range.
  void check() const;
};

// What the model around a task says of its arguments: which are its
// weights, and how cold they are when it runs. Empty for an operator tuned
// alone. Per task where TuneOptions is per run: `kiln tune` fills it from
// the model (driver/tune.h, model_tasks) and a farm job carries it with
// each task (farm/job.h), so that a model's task is timed alike wherever it
// is tuned.
struct ModelArgs {
  // Parameters, by position, that are constants: a model's weights, whose
  // packs a compiled model runs once (tir/transform/split_prepack.h), so
  // candidates are timed on them packed.
  std::vector<int> constants;
  // Parameters, by position, evicted from the caches before every timed
  // run unless timing.flush_cache evicts them all: a model's weights
  // (rpc::TimingConfig::cold_args).
  std::vector<int> cold_args;
  // How they are made cold: the bytes an inference of the model touches
  // (its weights and its arena), swept through the caches before each
  // timed run (TimingOptions::cold_sweep_bytes); 0 flushes them.
  int64_t cold_sweep_bytes = 0;

  bool empty() const { return constants.empty() && cold_args.empty() && cold_sweep_bytes == 0; }
  // Makes `o` evict the weights as the model leaves them before every
  // timed run, unless it flushes every argument already (flush_cache).
  void make_cold(TimingOptions& o) const;
  // The fields that are set; {} when empty().
  nlohmann::json to_json() const;
  // Throws kiln::Error naming a field of the wrong type, a negative
  // position or byte count, or an unknown field.
  static ModelArgs from_json(const nlohmann::json& j);
};

}  // namespace kiln::search
