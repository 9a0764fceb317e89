// kiln tune-op as a user runs it: it tunes into a database that bench-op
// then compiles from, reruns resume, bad input is refused, and Ctrl-C keeps
// what was measured.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "graph/model_builder.h"
#include "tuning_logs/sqlite_database.h"
#include "support/scratch.h"

namespace kiln::testing {
namespace {

const std::string kWorkload = "matmul:M=32,N=32,K=32";

std::string temp(const std::string& name) { return testing::scratch_path(name); }

TEST(TuneCli, TunesResumesAndBenchOpReproducesTheBest) {
  const std::string db = temp("tune.db");
  CliRun r = kiln("tune-op " + kWorkload + " --trials 8 --batch-size 4 --repeat 2 --final-top 2 --final-share 1 --db " +
                  db + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("round 1: 4/8 trials"), std::string::npos) << "a line per round off a terminal\n" << r.out;
  nlohmann::json j = nlohmann::json::parse(last_line(r.out));
  EXPECT_EQ(j["trials_done"], 8);
  EXPECT_EQ(j["measured_now"], 8);
  EXPECT_GT(j["best_gflops"].get<double>(), 0);
  // The best two were timed again, and the best is ranked by that.
  EXPECT_EQ(j["final_measured"], 2);
  EXPECT_NE(r.out.find("final measurement: 2 of the best records timed again"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("final samples"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reproduce: kiln bench-op " + kWorkload), std::string::npos) << r.out;

  const std::string curve = temp("curve.jsonl");
  CliRun again = kiln("tune-op " + kWorkload + " --trials 12 --batch-size 4 --repeat 2 --final-top 0 --db " + db +
                      " --curve " + curve + " --json");
  ASSERT_EQ(again.code, 0) << again.out;
  nlohmann::json k = nlohmann::json::parse(last_line(again.out));
  EXPECT_EQ(k["trials_done"], 12);
  EXPECT_EQ(k["measured_now"], 4) << "8 were there already";
  // The curve (what bench/tune plots): a line for the one round, counting
  // the earlier trials, with the round's time split and failed draws by kind.
  std::ifstream in(curve);
  std::string line;
  std::vector<nlohmann::json> rounds;
  while (std::getline(in, line)) rounds.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0]["trials"], 12);
  EXPECT_GT(rounds[0]["best_gflops"].get<double>(), 0);
  for (const char* key : {"propose_s", "build_s", "measure_s", "update_s"})
    EXPECT_GE(rounds[0][key].get<double>(), 0) << key;
  EXPECT_TRUE(rounds[0]["failed_draws"].is_object()) << rounds[0].dump();
  std::filesystem::remove(curve);

  CliRun bench = kiln("bench-op " + kWorkload + " --db " + db + " --check --json");
  ASSERT_EQ(bench.code, 0) << bench.out;
  EXPECT_EQ(bench.out.find("warning"), std::string::npos) << "the best record applied\n" << bench.out;
  EXPECT_TRUE(nlohmann::json::parse(last_line(bench.out))["check_passed"].get<bool>());
}

TEST(TuneCli, TuneOpTuneAndAFarmJobTakeTheSameFlagsIntoTheSameOptions) {
  // Before, tune-op timed 5 repeats and screened slow candidates, tune timed
  // 10 and screened none, a farm job timed 5 and screened none. Now the
  // three read one set of flags into search::TuneOptions; --dry-run prints it.
  const std::string db = temp("dry-run.db");
  graph::testing::ModelBuilder m;  // one convolution: the model `kiln tune` reads
  m.input("x", {1, 8, 6, 6}).weights("w", {8, 8, 3, 3}).output("y");
  graph::testing::set_ints(m.node("Conv", {"x", "w"}, {"y"}), "pads", {1, 1, 1, 1});
  const std::string model_file = temp("dry-run.onnx");
  std::ofstream(model_file, std::ios::binary) << m.bytes();
  for (const std::string& flags :
       {std::string(""), std::string(" --target 'llvm -num-cores=2' --repeat 3 --slow-factor 4 --batch-size 8 "
                                     "--final-top 2 --final-share 0.5 --seed 5 --flush-cache --register-designs 0")}) {
    CliRun op = kiln("tune-op " + kWorkload + " --db " + db + flags + " --dry-run");
    CliRun model = kiln("tune " + model_file + " --db " + db + flags + " --dry-run");
    CliRun job = kiln("job submit " + kWorkload + flags + " --dry-run");
    ASSERT_EQ(op.code, 0) << op.out;
    ASSERT_EQ(model.code, 0) << model.out;
    ASSERT_EQ(job.code, 0) << job.out;
    // The trials are each command's own: a workload's, or each of a
    // model's tasks' cap (--trials-per-task, 200).
    const nlohmann::json a = nlohmann::json::parse(last_line(op.out));
    nlohmann::json tuned = nlohmann::json::parse(last_line(model.out));
    EXPECT_EQ(tuned["trials"], 200) << flags;
    tuned["trials"] = a["trials"];
    EXPECT_EQ(tuned, a) << flags;
    EXPECT_EQ(nlohmann::json::parse(last_line(job.out)), a) << flags;
    if (flags.empty()) {
      EXPECT_EQ(a["timing"]["repeat"], 5);
      EXPECT_EQ(a["timing"]["slow_factor"], 5.0);
    } else {
      EXPECT_EQ(a["timing"]["repeat"], 3);
      EXPECT_EQ(a["timing"]["slow_factor"], 4.0);
      EXPECT_EQ(a["timing"]["flush_cache"], true);
      EXPECT_EQ(a["final_share"], 0.5);
      EXPECT_NE(a["target"].get<std::string>().find("-num-cores=2"), std::string::npos) << a["target"];
    }
  }
  EXPECT_FALSE(std::filesystem::exists(db)) << "a dry run opens no database";
}

TEST(TuneCli, ACostModelTrainedFromTheDatabaseStartsTheNextJob) {
  const std::string db = temp("pretrain.db"), model = temp("model.json");
  ASSERT_EQ(kiln("tune-op " + kWorkload + " --trials 8 --batch-size 8 --repeat 2 --final-top 0 --strategy random --db " +
                 db).code,
            0);
  CliRun t = kiln("costmodel train --db " + db + " -o " + model + " --json");
  ASSERT_EQ(t.code, 0) << t.out;
  nlohmann::json j = nlohmann::json::parse(last_line(t.out));
  EXPECT_EQ(j["workloads"], 1);
  EXPECT_EQ(j["records"], 8);

  // Another shape of the same operator, started from the model.
  CliRun r = kiln("tune-op matmul:M=48,N=32,K=32 --trials 8 --batch-size 8 --repeat 2 --final-top 0 --cost-model " + model +
                  " --db " + db + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("with cost model " + model), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(r.out))["trials_done"], 8);

  // A model file that is missing or is not a model.
  CliRun missing = kiln("tune-op " + kWorkload + " --trials 8 --cost-model " + temp("none.json") + " --db " + db);
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find(temp("none.json")), std::string::npos) << missing.out;
  CliRun empty = kiln("costmodel train --db " + temp("empty.db") + " -o " + model);
  EXPECT_EQ(empty.code, 2) << empty.out;
}

TEST(TuneCli, BadInputIsRefused) {
  const std::string db = temp("bad.db");
  for (const std::string& args : {"tune-op nonsense:M=1 --db " + db, "tune-op " + kWorkload + " --db " + db + " --time-budget soon",
                                  "tune-op " + kWorkload + " --db " + db + " --strategy psychic"}) {
    CliRun r = kiln(args);
    EXPECT_NE(r.code, 0) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
  }
  CliRun budget = kiln("tune-op " + kWorkload + " --db " + db + " --time-budget soon");
  EXPECT_NE(budget.out.find("'soon' is not a duration"), std::string::npos) << budget.out;
}

TEST(TuneCli, ATargetNoDeviceOfTheRunnerRunsIsRefusedBeforeTheFirstTrial) {
  // No machine here has a Volta GPU: the local runner offers the CPU and the
  // OpenCL device, and the tune stops before it spends a trial.
  const std::string db = temp("no-device.db");
  CliRun r = kiln("tune-op " + kWorkload + " --target 'cuda -arch=sm_70' --trials 4 --db " + db);
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("no device of the runner runs target 'cuda -arch=sm_70'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("round 1"), std::string::npos) << r.out;
}

TEST(TuneCli, CtrlCFinishesTheBatchAndKeepsIt) {
  const std::string db = temp("interrupt.db"), log = temp("interrupt.log");
  const std::string script = std::string(KILN_BINARY) + " tune-op " + kWorkload +
                             " --trials 100000 --batch-size 4 --repeat 2 --db " + db + " > " + log +
                             " 2>&1 & p=$!; until grep -qs 'round 1' " + log + "; do sleep 0.05; done; kill -INT $p; "
                             "wait $p; echo exit=$?; cat " + log;
  FILE* sh = popen(script.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, sh)) out.append(buf, n);
  pclose(sh);
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
  EXPECT_NE(out.find("stopped; every measured batch is in"), std::string::npos) << out;
  auto d = tuning::open_sqlite_database(db, tuning::OpenMode::kExisting);
  const int64_t n = d->num_records();
  EXPECT_GE(n, 4);
  EXPECT_EQ(n % 4, 0) << "whole batches only";
}

}  // namespace
}  // namespace kiln::testing
