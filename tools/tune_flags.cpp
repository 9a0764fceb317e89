#include "tools/tune_flags.h"

#include "tools/duration.h"

namespace kiln::cli {

search::TuneOptions TuneFlags::resolve() const {
  search::TuneOptions o = options;
  o.target = Target::parse(target);
  o.time_budget_s = time_budget.empty() ? 0 : parse_duration(time_budget);
  o.check();
  return o;
}

std::string dry_run_task(const tuning::WorkloadEntry& entry, int64_t weight, const search::ModelArgs& model) {
  return nlohmann::json{{"task", entry.shape}, {"key", entry.key}, {"weight", weight}, {"model", model.to_json()}}.dump();
}

void add_tune_options(CLI::App* cmd, TuneFlags& f) {
  search::TuneOptions& o = f.options;
  cmd->add_option("--target", f.target, "target string, e.g. 'llvm -mcpu=znver4 -num-cores=2'")->capture_default_str();
  cmd->add_option("--time-budget", f.time_budget, "stop after this long: 90s, 10m, 1h");
  cmd->add_option("--strategy", o.strategy, "how candidates are chosen: evolutionary (guided by the cost model) or random")
      ->check(CLI::IsMember({"evolutionary", "random"}))
      ->capture_default_str();
  cmd->add_option("--cost-model", o.cost_model,
                  "with evolutionary search: xgb (trained as it goes), random, or a model file (kiln costmodel train)")
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of the search")->capture_default_str();
  cmd->add_option("--batch-size", o.batch_size, "candidates per round")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--threads", o.timing.threads, "threads per measured run (default: the device's cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--repeat", o.timing.repeat, "timed repeats per candidate")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--slow-factor", o.timing.slow_factor,
                  "time a candidate once when its first run is this many times slower than the best so far (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--flush-cache", o.timing.flush_cache, "evict the arguments from the caches before each timed repeat");
  cmd->add_option("--similar", o.similar_workloads,
                  "measure first the best designs of up to this many similar workloads in the database (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--register-designs", o.register_designs,
                  "measure first this many designs with register tiles sized from the target (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--final-top", o.final_top,
                  "at the end, time the best this many again at length and rank them by it (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--final-share", o.final_share,
                  "the most of the run (of its budget, with --time-budget) the final measurement takes, the best "
                  "record timed again whatever it costs (1: every --final-top record)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_flag("--dry-run", f.dry_run,
                "print the tuning options as JSON (after a line for each task of a model) and stop, tuning nothing");
}

}  // namespace kiln::cli
