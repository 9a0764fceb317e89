// A tuning job's progress as JSON: what `kiln tune-op --curve` writes per
// round, and what a farm's job shows (`kiln job status --json`); and a
// model's, a round of the task scheduler (a farm's model job, and the
// Python API's tune): its estimated latency rather than one kernel's
// GFLOP/s.
#pragma once

#include <nlohmann/json.hpp>

#include "search/task_scheduler.h"
#include "search/tuner.h"

namespace kiln::search {

nlohmann::json progress_json(const TuneProgress& p);
nlohmann::json progress_json(const SchedulerProgress& p, const std::vector<SchedulerTask>& tasks);

}  // namespace kiln::search
