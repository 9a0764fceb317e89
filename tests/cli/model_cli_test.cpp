// kiln tune, compile and run on a model file, as a user runs them: a short
// tune into a database, the model run with it and checked against the
// reference executor, in blocked channels and in NCHW; a profiled run; a
// bad --layout is refused by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"
#include "core/structural.h"
#include "driver/pick_in_model.h"
#include "driver/tune.h"
#include "graph/memory_plan.h"
#include "graph/model_builder.h"
#include "support/scratch.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/apply_record.h"
#include "tuning_logs/open_database.h"

namespace kiln::testing {
namespace {

// Conv + Relu, a Conv + residual Add, and a pool that reads NCHW:
// two convolutions of 8 channels: a block of 8 on any x86 target.
std::string write_model() {
  graph::testing::ModelBuilder m;
  m.input("x", {1, 8, 6, 6}).weights("w1", {8, 8, 3, 3}).weights("b1", {8}).weights("w2", {8, 8, 3, 3}).output("y");
  graph::testing::set_ints(m.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  graph::testing::set_ints(m.node("Conv", {"a", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Add", {"c2", "a"}, {"s"});
  m.node("GlobalAveragePool", {"s"}, {"y"});
  const std::string path = scratch_path("model_cli.onnx");
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

TEST(ModelCli, TunesThenRunsBlockedAndPlainWithinTolerance) {
  const std::string model = write_model();
  CliRun g = kiln("graph " + model + " --after-pass convert_layout");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_NE(g.out.find("kiln.ConvNCHWc"), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("float32[1, 1, 6, 6, 8]"), std::string::npos) << g.out;

  const std::string db = scratch_path("model_cli.db");
  CliRun t = kiln("tune " + model + " --db " + db + " --trials-per-task 4 --batch-size 4 --final-top 0 --json");
  ASSERT_EQ(t.code, 0) << t.out;
  const nlohmann::json tuned = nlohmann::json::parse(last_line(t.out));
  EXPECT_GT(tuned["trials_now"].get<int64_t>(), 0) << t.out;
  bool blocked_task = false;
  for (const nlohmann::json& task : tuned["tasks"])
    blocked_task = blocked_task || task["name"].get<std::string>().find("kiln.ConvNCHWc") != std::string::npos;
  EXPECT_TRUE(blocked_task) << t.out;

  for (const std::string layout : {"nchwc", "nchw"}) {
    SCOPED_TRACE(layout);
    CliRun r = kiln("run " + model + " --db " + db + " --layout " + layout + " --check --repeat 2 --json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(last_line(r.out))["check"], "ok") << r.out;
    // The database was tuned blocked: in NCHW no convolution has a record.
    const size_t warning = r.out.find("have no tuned record");
    const std::string untuned = warning == std::string::npos ? "" : r.out.substr(warning, r.out.find('\n', warning) - warning);
    if (layout == "nchwc")
      EXPECT_EQ(untuned.find("Conv"), std::string::npos) << r.out;
    else
      EXPECT_NE(untuned.find("(Conv+Relu)"), std::string::npos) << r.out;
  }

  // --profile: a line per call, and the calls in the JSON, each timed.
  CliRun p = kiln("run " + model + " --layout nchw --repeat 3 --profile --json");
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("task0 "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("Conv+Relu"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("sum of the calls' medians"), std::string::npos) << p.out;
  const nlohmann::json profile = nlohmann::json::parse(last_line(p.out))["profile"];
  ASSERT_EQ(profile["calls"].size(), nlohmann::json::parse(last_line(p.out))["calls"].get<size_t>()) << p.out;
  for (const nlohmann::json& c : profile["calls"]) EXPECT_GT(c["median_ms"].get<double>(), 0.0) << p.out;
  // The time by kind: the calls' sum split among what they do.
  double by_kind = 0;
  for (const auto& [kind, ms] : profile["kinds"].items()) by_kind += ms.get<double>();
  EXPECT_GT(profile["kinds"]["conv"].get<double>(), 0.0) << p.out;
  EXPECT_NEAR(by_kind, profile["sum_ms"].get<double>(), 1e-9 + 1e-9 * by_kind) << p.out;

  CliRun bad = kiln("run " + model + " --layout nhwc");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--layout takes nchwc or nchw, not 'nhwc'"), std::string::npos) << bad.out;
}

// What an inference touches, which a model's tune sweeps through the caches
// to time each task's weights cold as the model leaves them: the two
// convolutions' weights and bias (2304 + 32 + 2304 bytes, each once) and
// the arena. Tuned with warm weights, nothing is swept.
TEST(ModelCli, ATaskSweepsWhatAnInferenceTouchesToTimeItsWeightsCold) {
  const std::string model = write_model();
  const ModelProgram m = prepare_model(model, "", pass_options("nchw", Target::parse("llvm")));
  const int64_t arena = graph::plan_memory(m.graph, m.groups).arena_bytes;
  EXPECT_GT(arena, 0);
  EXPECT_EQ(inference_bytes(m), arena + 2304 + 32 + 2304);
  for (const search::SchedulerTask& t : model_tasks(m, /*warm_weights=*/false)) {
    EXPECT_EQ(t.task.model.cold_sweep_bytes, inference_bytes(m)) << t.name;
    EXPECT_EQ(t.task.model.cold_args, t.task.model.constants) << t.name;
  }
  for (const search::SchedulerTask& t : model_tasks(m, /*warm_weights=*/true)) {
    EXPECT_EQ(t.task.model.cold_sweep_bytes, 0) << t.name;
    EXPECT_TRUE(t.task.model.cold_args.empty()) << t.name;
  }
}

// A farm job times a model's tasks as `kiln tune` does: each task carries
// its weights' positions and how cold they are (search::ModelArgs). Before,
// a job's spec held the workloads alone, so a farm timed a model's tasks as
// operators alone: weights packed inside the kernel and left in the caches.
TEST(ModelCli, AFarmJobTimesAModelsTasksAsKilnTuneDoes) {
  const std::string model = write_model();
  const ModelProgram m = prepare_model(model, "", pass_options("nchwc", Target::parse("llvm")));
  for (const std::string warm : {"", " --warm-weights"}) {
    SCOPED_TRACE(warm);
    CliRun tune = kiln("tune " + model + " --db " + scratch_path("unopened.db") + warm + " --dry-run");
    CliRun job = kiln("job submit --model " + model + warm + " --dry-run");
    ASSERT_EQ(tune.code, 0) << tune.out;
    ASSERT_EQ(job.code, 0) << job.out;
    EXPECT_EQ(job.out, tune.out);
    std::istringstream lines(job.out);
    std::string line;
    int tasks = 0, with_weights = 0, schedules = 0;
    while (std::getline(lines, line)) {
      const nlohmann::json j = nlohmann::json::parse(line);
      if (j.contains("policy")) {  // how the trials are shared: the task scheduler's, 200 a task
        ++schedules;
        EXPECT_EQ(j["policy"], "gradient") << line;
        EXPECT_EQ(j["trials_per_task"], 200) << line;
      }
      if (!j.contains("task")) continue;  // the scheduling and the tuning options, last
      ++tasks;
      EXPECT_EQ(j["weight"], 1) << line;
      const nlohmann::json& args = j["model"];
      if (!args.contains("constants")) continue;
      ++with_weights;
      if (warm.empty()) {
        EXPECT_EQ(args["cold_args"], args["constants"]) << line;
        EXPECT_EQ(args["cold_sweep_bytes"], inference_bytes(m)) << line;
      } else {
        EXPECT_FALSE(args.contains("cold_args")) << line;
        EXPECT_FALSE(args.contains("cold_sweep_bytes")) << line;
      }
    }
    EXPECT_EQ(tasks, static_cast<int>(m.tasks.size())) << job.out;
    EXPECT_EQ(schedules, 1) << job.out;
    EXPECT_EQ(with_weights, 2) << "the two convolutions\n" << job.out;
  }
}

// bench-op --model times a model's task as its tune does: weights packed
// and swept cold (or left warm), through a runner, checked.
TEST(ModelCli, BenchOpTimesAModelsTaskAsItsTuneDoes) {
  const std::string model = write_model();
  const ModelProgram m = prepare_model(model, "", pass_options("nchwc", Target::parse("llvm")));
  std::string conv;
  for (const search::SchedulerTask& t : model_tasks(m, false))
    if (conv.empty() && !t.task.model.constants.empty()) conv = t.task.entry.key;
  ASSERT_FALSE(conv.empty());
  for (const std::string warm : {"", " --warm-weights"}) {
    SCOPED_TRACE(warm);
    CliRun b = kiln("bench-op " + conv + " --model " + model + warm + " --repeat 3 --min-repeat-ms 0 --check --json");
    ASSERT_EQ(b.code, 0) << b.out;
    const nlohmann::json j = nlohmann::json::parse(last_line(b.out));
    EXPECT_TRUE(j["check_passed"].get<bool>()) << b.out;
    EXPECT_TRUE(j.contains("runner_ms")) << "timed through a runner\n" << b.out;
    const nlohmann::json& args = j["model"];
    ASSERT_TRUE(args.contains("constants")) << b.out;
    if (warm.empty()) {
      EXPECT_EQ(args["cold_args"], args["constants"]) << b.out;
      EXPECT_EQ(args["cold_sweep_bytes"], inference_bytes(m)) << b.out;
    } else {
      EXPECT_FALSE(args.contains("cold_args")) << b.out;
    }
  }
  CliRun wrong = kiln("bench-op v1-0000000000000000 --model " + model);
  EXPECT_NE(wrong.code, 0) << wrong.out;
  EXPECT_NE(wrong.out.find("has no task v1-0000000000000000 for this target and layout (its tasks: "), std::string::npos)
      << wrong.out;
  EXPECT_NE(wrong.out.find(conv), std::string::npos) << "the keys it has\n" << wrong.out;
}

// --pick-in-model: each task's best records run in the model in turn, and
// the one whose calls took the least time there is compiled; the model so
// compiled still computes what the reference does.
TEST(ModelCli, PickInModelCompilesPerTaskTheRecordFastestInTheModel) {
  const std::string model = write_model();
  const std::string db = scratch_path("model_cli_pick.db");
  std::filesystem::remove(db);
  CliRun t = kiln("tune " + model + " --db " + db + " --trials-per-task 6 --batch-size 6 --final-top 0 --json");
  ASSERT_EQ(t.code, 0) << t.out;

  const Target target = Target::parse("llvm");
  const ModelProgram m = prepare_model(model, "", pass_options("nchwc", target));
  PickOptions options;
  options.candidates = 3;
  options.seconds = 0.1;
  options.min_rounds = 5;
  const InModelPick p = pick_in_model(m, db, target, options);
  EXPECT_GE(p.rounds, 5);
  ASSERT_EQ(p.tasks.size(), m.tasks.size());
  std::unique_ptr<tuning::Database> d = tuning::open_database(db, tuning::OpenMode::kExisting);
  size_t with_choice = 0;
  bool changed = false;
  for (size_t k = 0; k < m.tasks.size(); ++k) {
    SCOPED_TRACE("task " + std::to_string(k) + " " + m.tasks[k].name);
    const TaskPick& task = p.tasks[k];
    const std::vector<tuning::TuningRecord> best = d->top_k(workload_key(m.tasks[k].func), target.str(), 3);
    ASSERT_EQ(task.record_ids.size(), best.size());
    ASSERT_EQ(task.model_ms.size(), best.size());
    with_choice += best.size() > 1;
    if (best.empty()) continue;
    for (size_t j = 0; j < best.size(); ++j) {
      EXPECT_EQ(task.record_ids[j], best[j].id);
      EXPECT_GT(task.model_ms[j], 0.0);
    }
    // The fastest in the model, unless the picks together lost to the
    // best alone together: then every task's best alone.
    const size_t fastest =
        static_cast<size_t>(std::min_element(task.model_ms.begin(), task.model_ms.end()) - task.model_ms.begin());
    EXPECT_EQ(task.picked, p.kept ? fastest : 0);
    EXPECT_TRUE(structural_equal(p.funcs[k], tuning::apply_record(best[task.picked], m.tasks[k].func)));
    changed = changed || fastest != 0;
  }
  EXPECT_GE(with_choice, 1u) << "no task had two records to choose from";
  if (changed) {
    EXPECT_GT(p.alone_ms, 0.0);
    EXPECT_GT(p.picked_ms, 0.0);
    EXPECT_EQ(p.kept, p.picked_ms < p.alone_ms);
  }

  CliRun c = kiln("compile " + model + " --db " + db + " --pick-in-model 3 -o " + scratch_path("model_cli_pick"));
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("picked in the model over "), std::string::npos) << c.out;
  CliRun r = kiln("run " + model + " --db " + db + " --pick-in-model 3 --check --repeat 2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(r.out))["check"], "ok") << r.out;

  CliRun no_db = kiln("compile " + model + " --pick-in-model 3 -o " + scratch_path("model_cli_pick_no_db"));
  EXPECT_EQ(no_db.code, 2) << no_db.out;
  EXPECT_NE(no_db.out.find("--pick-in-model chooses among a database's records: give --db"), std::string::npos)
      << no_db.out;
  // The pick runs the model here: a target of another machine is refused.
  CliRun elsewhere = kiln("compile " + model + " --db " + db + " --pick-in-model 3 --target 'llvm -mtriple=aarch64-linux-gnu'" +
                          " -o " + scratch_path("model_cli_pick_aarch64"));
  EXPECT_EQ(elsewhere.code, 2) << elsewhere.out;
  EXPECT_NE(elsewhere.out.find("picking records in the model runs it on this machine, which cannot run"),
            std::string::npos)
      << elsewhere.out;
}

// --inputs names a folder of input_N.pb; one missing is named, not
// taken for a model of fewer inputs.
TEST(ModelCli, AFolderOfInputsWithoutTheFileAnInputNeedsIsRefusedByName) {
  const std::string model = write_model();
  const std::string dir = scratch_path("model_cli_no_inputs");
  std::filesystem::create_directories(dir);
  CliRun r = kiln("run " + model + " --layout nchw --repeat 1 --inputs " + dir);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("the model takes 1 inputs, and there is no input_0.pb"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kiln::testing
