// A tuning round as one line of text, the same words wherever it is shown,
// as search/progress_json.h gives it the same JSON: one task's round as
// `kiln tune-op` prints it off a terminal and a farm's operator job logs
// it (`kiln job logs`), and a task scheduler's round as `kiln tune` prints
// it and a farm's model job logs it.
#pragma once

#include <string>
#include <vector>

#include "search/task_scheduler.h"
#include "search/tuner.h"

namespace kiln::search {

// "42s", "3m05s", "1h02m".
std::string clock_text(double seconds);

// "round 3: 24/64 trials, best 310.2 GFLOP/s, 1 errors, 2 screened, elapsed
// 41.0 s, ETA 69.3 s (propose 3.1 s, build 30.2 s, measure 7.0 s, update
// 0.7 s)", with the internal errors, the first round's carried-over records
// and register designs, and the draws that made no candidate where there
// are any; the last report, the final measurement, says how many of the
// best records were timed again.
std::string progress_line(const TuneProgress& p);

// "round 7: task 3 (conv2d_..., x2) 48 trials; 5/18 tasks tuned, 412 trials
// this run; model 9.31 ms, untuned 956.20 ms; elapsed 2m41s, ETA 6m10s",
// and "; N INTERNAL ERRORS" when candidates met a compiler bug. Tasks are
// numbered from 0, as `kiln tune`'s closing table numbers them.
std::string progress_line(const SchedulerProgress& p, const std::vector<SchedulerTask>& tasks);

}  // namespace kiln::search
