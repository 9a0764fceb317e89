// One tuning policy: the options a tuning run takes, as JSON and back, and
// as a farm job carries them to the daemon that tunes each task.
#include <gtest/gtest.h>

#include "farm/job.h"
#include "search/tune_options.h"
#include "support/error_of.h"

namespace kiln::search {
namespace {

TEST(TuneOptions, TheDefaultsMeasureFiveRepeatsAndScreenSlowCandidates) {
  const TuneOptions o;
  EXPECT_EQ(o.timing.repeat, 5);
  EXPECT_EQ(o.timing.slow_factor, 5);
  EXPECT_EQ(o.final_top, 5);
  EXPECT_EQ(o.batch_size, 64);
}

TEST(TuneOptions, JsonRoundTripKeepsEverySetting) {
  TuneOptions o;
  o.target = Target::parse("llvm -mcpu=haswell -num-cores=2");
  o.trials = 300;
  o.time_budget_s = 90;
  o.batch_size = 16;
  o.seed = 9;
  o.strategy = "random";
  o.cost_model = "random";
  o.similar_workloads = 0;
  o.register_designs = 3;
  o.final_top = 2;
  o.final_repeat = 6;
  o.timing.repeat = 7;
  o.timing.slow_factor = 0;
  o.timing.flush_cache = true;
  o.timing.threads = 1;
  const nlohmann::json j = o.to_json();
  const TuneOptions back = TuneOptions::from_json(j);
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.target.str(), o.target.str());
  EXPECT_EQ(back.timing.repeat, 7);
  EXPECT_TRUE(back.timing.flush_cache);
  // Fields left out take the defaults.
  EXPECT_EQ(TuneOptions::from_json({{"trials", 8}}).to_json()["timing"], TuneOptions().to_json()["timing"]);
}

TEST(TuneOptions, AMalformedSettingIsNamed) {
  using testing::error_of;
  EXPECT_EQ(error_of([] { TuneOptions::from_json({{"repeats", 3}}); }), "tune options: unknown setting \"repeats\"");
  EXPECT_EQ(error_of([] { TuneOptions::from_json({{"timing", {{"repeat", "5"}}}}); }),
            "tune options: \"timing\": \"repeat\" has the wrong type: \"5\"");
  EXPECT_EQ(error_of([] { TuneOptions::from_json({{"timing", {{"slow_factor", 0.5}}}}); }),
            "tune options: slow factor 0.5: must be 0 (time every candidate fully) or at least 1");
  EXPECT_EQ(error_of([] { TuneOptions::from_json({{"strategy", "greedy"}}); }),
            "tune options: strategy greedy: must be evolutionary or random");
}

farm::JobSpec one_task_spec() {
  farm::JobSpec s;
  s.tasks = {{"k1", "{}", "matmul", "matmul:M=8,N=8,K=8", 1024}};
  s.name = "matmul:M=8,N=8,K=8";
  s.device_key = "znver3";
  return s;
}

TEST(TuneOptions, AFarmJobTunesEachTaskWithTheOptionsItWasSubmittedWith) {
  farm::JobSpec s = one_task_spec();
  s.tune.target = Target::parse("llvm -num-cores=2");
  s.tune.trials = 40;
  s.tune.timing.repeat = 3;
  s.tune.final_top = 1;
  // Through the queue (JSON) to the daemon, which tunes with task_options.
  const farm::JobSpec queued = farm::JobSpec::from_json(s.to_json());
  const std::optional<TuneOptions> task = queued.task_options(/*elapsed_s=*/12);
  ASSERT_TRUE(task);
  EXPECT_EQ(task->to_json(), s.tune.to_json());
  // A job budget is what is left of it for each task, and none left: no task.
  s.tune.time_budget_s = 60;
  EXPECT_EQ(farm::JobSpec::from_json(s.to_json()).task_options(12)->time_budget_s, 48);
  EXPECT_FALSE(farm::JobSpec::from_json(s.to_json()).task_options(61));
}

TEST(TuneOptions, AJobQueuedBeforeTheOptionsWereOneObjectStillReads) {
  nlohmann::json j = one_task_spec().to_json();
  j.erase("tune");
  j["target"] = "llvm -num-cores=2";
  j["trials"] = 32;
  j["repeat"] = 3;
  j["batch_size"] = 8;
  const farm::JobSpec s = farm::JobSpec::from_json(j);
  EXPECT_EQ(s.tune.trials, 32);
  EXPECT_EQ(s.tune.timing.repeat, 3);
  EXPECT_EQ(s.tune.batch_size, 8);
  EXPECT_EQ(s.tune.timing.slow_factor, TuneOptions().timing.slow_factor);
}

}  // namespace
}  // namespace kiln::search
