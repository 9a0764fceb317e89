// A round's line of text, as `kiln tune-op`, `kiln tune` and a farm's jobs
// print it: the same words from the same progress, wherever it is shown.
#include <gtest/gtest.h>

#include "search/progress_line.h"

namespace kiln::search {
namespace {

TEST(ProgressLine, ClockTextCountsSecondsMinutesAndHours) {
  EXPECT_EQ(clock_text(41.6), "42s");
  EXPECT_EQ(clock_text(185), "3m05s");
  EXPECT_EQ(clock_text(3720), "1h02m");
}

TEST(ProgressLine, AnOperatorsRoundSaysWhereItsTimeWent) {
  TuneProgress p;
  p.round = 1;
  p.trials_done = 64;
  p.trials_total = 400;
  p.errors = 3;
  p.internal_errors = 1;
  p.screened = 12;
  p.register_designs = 16;
  p.best_gflops = 310.24;
  p.elapsed_s = 41;
  p.eta_s = 215.5;
  p.propose_s = 3.1;
  p.build_s = 30.2;
  p.measure_s = 7.0;
  p.update_s = 0.7;
  p.failed_draws[ScheduleErrorKind::kFactor] = 2;
  EXPECT_EQ(progress_line(p),
            "round 1: 64/400 trials, best 310.2 GFLOP/s, 3 errors (1 internal), 12 screened, 16 register designs, "
            "elapsed 41.0 s, ETA 215.5 s (propose 3.1 s, build 30.2 s, measure 7.0 s, update 0.7 s); draws that made "
            "no candidate: FactorError 2");
  p.round = 2;  // the first round's counts are the first round's
  p.internal_errors = 0;
  p.failed_draws.clear();
  EXPECT_EQ(progress_line(p),
            "round 2: 64/400 trials, best 310.2 GFLOP/s, 3 errors, 12 screened, elapsed 41.0 s, ETA 215.5 s (propose "
            "3.1 s, build 30.2 s, measure 7.0 s, update 0.7 s)");
  p.final_measured = 5;
  EXPECT_EQ(progress_line(p), "final measurement: 5 of the best records timed again, best 310.2 GFLOP/s");
}

TEST(ProgressLine, AModelsRoundNamesItsTaskAndTheModelsEstimate) {
  std::vector<SchedulerTask> tasks(3);
  tasks[1].name = "kiln.ConvNCHWc+Relu";
  tasks[1].weight = 2;
  std::vector<TaskState> states(3);
  states[1].trials = 48;
  SchedulerProgress p;
  p.round = 7;
  p.task = 1;
  p.tasks = &states;
  p.tasks_tuned = 2;
  p.trials_now = 412;
  p.latency_s = 9.3125e-3;
  p.untuned_latency_s = 0.9562;
  p.elapsed_s = 161;
  p.eta_s = 370;
  EXPECT_EQ(progress_line(p, tasks),
            "round 7: task 1 (kiln.ConvNCHWc+Relu, x2) 48 trials; 2/3 tasks tuned, 412 trials this run; model 9.31 "
            "ms, untuned 956.20 ms; elapsed 2m41s, ETA 6m10s");
  p.internal_errors = 4;
  EXPECT_EQ(progress_line(p, tasks).substr(progress_line(p, tasks).rfind(';')), "; 4 INTERNAL ERRORS");
}

}  // namespace
}  // namespace kiln::search
