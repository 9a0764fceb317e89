// One tuning policy: the options a tuning run takes, as JSON and back, and
// as a farm job carries them to the daemon that tunes each task.
#include <gtest/gtest.h>

#include "farm/job.h"
#include "farm/requests.h"
#include "ops/workload.h"
#include "tuning_logs/workload_entry.h"
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
  o.final_share = 0.5;
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
  EXPECT_EQ(error_of([] { TuneOptions::from_json({{"final_share", 0}}); }),
            "tune options: final share 0: must be in (0, 1]");
}

farm::JobSpec one_task_spec() {
  farm::JobSpec s;
  s.tasks = {{{"k1", "{}", "matmul", "matmul:M=8,N=8,K=8", 1024}}};
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

// A model's task keeps its weights' positions and their sweep through the
// queue; an operator's task (and a spec queued before tasks carried them)
// reads as one with none.
TEST(TuneOptions, AFarmJobKeepsWhatTheModelSaysOfEachTasksArguments) {
  farm::JobSpec s = one_task_spec();
  s.tasks.push_back(s.tasks[0]);
  s.tasks[1].model = {.constants = {1, 2}, .cold_args = {1, 2}, .cold_sweep_bytes = int64_t{21} << 20};
  const nlohmann::json j = s.to_json();
  EXPECT_FALSE(j["tasks"][0].contains("model")) << j["tasks"][0];
  const farm::JobSpec queued = farm::JobSpec::from_json(j);
  ASSERT_EQ(queued.tasks.size(), 2u);
  EXPECT_TRUE(queued.tasks[0].model.empty());
  EXPECT_EQ(queued.tasks[1].model.constants, (std::vector<int>{1, 2}));
  EXPECT_EQ(queued.tasks[1].model.cold_args, (std::vector<int>{1, 2}));
  EXPECT_EQ(queued.tasks[1].model.cold_sweep_bytes, int64_t{21} << 20);

  auto refused = [&](nlohmann::json model) {
    nlohmann::json bad = j;
    bad["tasks"][1]["model"] = std::move(model);
    return testing::error_of([&] { farm::JobSpec::from_json(bad); });
  };
  EXPECT_EQ(refused({{"cold_args", {-1}}}),
            "malformed job spec: a task's model arguments: parameter position -1 is negative");
  EXPECT_EQ(refused({{"cold_bytes", 5}}), "malformed job spec: a task's model arguments: unknown setting \"cold_bytes\"");
  EXPECT_EQ(refused({{"constants", "w"}}),
            "malformed job spec: a task's model arguments: \"constants\" has the wrong type: \"w\"");
}

// A daemon refuses, at submission, a task whose model names a parameter
// its function does not have: matmul's are A, B and C.
TEST(TuneOptions, ASubmittedTaskNamingAParameterItsFunctionLacksIsRefused) {
  const ops::Workload w = ops::parse_workload("matmul:M=8,N=8,K=8");
  farm::JobSpec s = one_task_spec();
  s.tasks = {{tuning::workload_entry(ops::build_workload(w), w.op, w.str(), ops::workload_flops(w)), {.constants = {1}}}};
  rpc::proto::SubmitRequest req;
  req.set_spec_json(s.to_json().dump());
  EXPECT_EQ(farm::read_submission(req).tasks[0].model.constants, (std::vector<int>{1}));
  s.tasks[0].model.cold_args = {3};
  req.set_spec_json(s.to_json().dump());
  EXPECT_EQ(testing::error_of([&] { farm::read_submission(req); }),
            "task matmul:M=8,N=8,K=8,dtype=float32: its model names parameter 3 of a function with 3 parameters");
}

// A model's job carries each task's weight and name and the scheduling
// policy through the queue, and the daemon shares the trials as `kiln
// tune` would: the per-task trials as each task's cap, the job's budget
// for all. An operators' job has no schedule: its tasks are tuned in turn.
TEST(TuneOptions, AModelsFarmJobSharesItsTrialsAmongTheTasksAsKilnTuneDoes) {
  farm::JobSpec s = one_task_spec();
  EXPECT_FALSE(s.to_json().contains("schedule"));
  EXPECT_FALSE(farm::JobSpec::from_json(s.to_json()).schedule);
  s.tasks.push_back(s.tasks[0]);
  s.tasks[0].weight = 3;
  s.tasks[0].name = "Conv+Relu";
  s.tune.trials = 48;
  s.tune.time_budget_s = 600;
  s.schedule = TaskSchedulerOptions::Policy::kRoundRobin;
  const farm::JobSpec queued = farm::JobSpec::from_json(s.to_json());
  ASSERT_TRUE(queued.schedule);
  EXPECT_EQ(*queued.schedule, TaskSchedulerOptions::Policy::kRoundRobin);
  EXPECT_EQ(queued.tasks[0].weight, 3);
  EXPECT_EQ(queued.tasks[0].name, "Conv+Relu");
  EXPECT_EQ(queued.tasks[1].weight, 1);
  EXPECT_EQ(queued.tasks[1].name, "");
  const TaskSchedulerOptions o = queued.scheduler_options();
  EXPECT_EQ(schedule_json(o), (nlohmann::json{{"policy", "round-robin"}, {"trials", 0}, {"trials_per_task", 48},
                                              {"time_budget_s", 600.0}}));
  EXPECT_EQ(o.tune.to_json(), s.tune.to_json());

  nlohmann::json bad = s.to_json();
  bad["schedule"]["policy"] = "fastest";
  EXPECT_EQ(testing::error_of([&] { farm::JobSpec::from_json(bad); }),
            "malformed job spec: unknown task scheduling policy 'fastest' (gradient or round-robin)");
  bad = s.to_json();
  bad["tasks"][1]["weight"] = 0;
  EXPECT_EQ(testing::error_of([&] { farm::JobSpec::from_json(bad); }), "malformed job spec: task 2 has weight 0");
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
