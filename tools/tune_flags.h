// The flags of every command that tunes: `kiln tune-op`, `kiln tune` and
// `kiln job submit` take the same ones, with the same defaults (those of
// search::TuneOptions), into the same struct, so that a kernel is measured
// the same way whichever of them asked for it. A farm job carries the
// result in its spec (farm/job.h); `--dry-run` prints it, after a line for
// each task of a model saying how its arguments are timed and how the
// trials are shared among them.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "search/tune_options.h"
#include "tuning_logs/record.h"

namespace kiln::cli {

struct TuneFlags {
  search::TuneOptions options;  // what the flags fill directly
  std::string target = "llvm";
  std::string time_budget;      // "90s", "10m", "1h"; empty: none
  bool dry_run = false;

  // The options the flags give (target parsed, budget read), checked.
  // Throws kiln::Error naming the flag at fault.
  search::TuneOptions resolve() const;
};

// Adds the shared flags to `cmd`. The trial count is each command's own
// (per workload, per task, or the whole model's), so it is not among them.
void add_tune_options(CLI::App* cmd, TuneFlags& flags);

// The line `--dry-run` prints for one task of a model: its workload, its
// weight in the model (the task scheduler's) and what the model says of
// its arguments (which are weights, how cold they are timed), so that
// `kiln tune` and `kiln job submit --model` can be seen to tune a model's
// tasks alike. After the tasks, both print the scheduling
// (search::schedule_json) and then the tuning options.
std::string dry_run_task(const tuning::WorkloadEntry& entry, int64_t weight, const search::ModelArgs& model);

}  // namespace kiln::cli
