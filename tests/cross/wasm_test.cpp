// WebAssembly: every operator's default program and every CPU hand schedule
// of examples/schedules, built for wasm32 with SIMD128 and run in Node.js by
// the run worker's engine (rpc/worker/wasm_kernel.h) against the reference
// interpreter's output on the same inputs; the engine's failures reach the
// caller as the candidate's errors; `kiln tune-op --target wasm32` measures
// in V8.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "core/paths.h"
#include "graph/compiled_model.h"
#include "support/every_op.h"
#include "support/example_schedules.h"
#include "support/foreign_device.h"
#include "support/scratch.h"
#include "tuning_logs/open_database.h"

namespace kiln {
namespace {

using testing::ExampleSchedule;
using testing::ForeignDevice;

constexpr const char* kWasm = "wasm32 -mattr=+simd128";
// Two threads: the module's memory shared, a worker per extra thread.
constexpr const char* kWasmThreads = "wasm32 -mattr=+simd128,+atomics,+bulk-memory -num-cores=2";
// Relaxed SIMD: multiply-adds that may fuse (V8 behind a flag before 11.4).
constexpr const char* kWasmRelaxed = "wasm32 -mattr=+simd128,+relaxed-simd";

ForeignDevice& device(const char* target = kWasm) { return testing::foreign_device(target); }

TEST(WasmTarget, IsShorthandForLlvmsWasm32) {
  Target t = Target::parse(kWasm);
  EXPECT_EQ(t.str(), "llvm -mtriple=wasm32-unknown-unknown -mcpu=generic -mattr=+simd128 -num-cores=1");
  EXPECT_EQ(Target::parse(t.str()), t);
  EXPECT_EQ(t.vector_width_bits(DataType::Float32()), 128);
  EXPECT_EQ(Target::parse("wasm32").vector_lanes(DataType::Float32()), 1) << "no SIMD unless asked for";
  try {
    Target::parse("wasm32 -mattr=+simd128 -num-cores=2");
    FAIL() << "threads without shared memory";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "wasm32 with -num-cores=2 needs -mattr=+atomics,+bulk-memory: its threads share the module's memory");
  }
}

class WasmDefaultPrograms : public ::testing::TestWithParam<const char*> {};

TEST_P(WasmDefaultPrograms, MatchInterpreter) {
  ForeignDevice& d = device();
  EXPECT_EQ(d.check(prepare_op(GetParam(), d.target()), 1), "") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryOp, WasmDefaultPrograms, ::testing::ValuesIn(testing::kEveryOpWorkloads));


// On one thread, and on two (their parallel loops split across the
// module's worker).
class WasmHandSchedules : public ::testing::TestWithParam<std::tuple<const char*, ExampleSchedule>> {};

TEST_P(WasmHandSchedules, MatchInterpreter) {
  auto [target, e] = GetParam();
  ForeignDevice& d = device(target);
  EXPECT_EQ(d.check(testing::prepare_example(e, d.target()), d.target().num_cores()), "") << e << " on " << target;
}

INSTANTIATE_TEST_SUITE_P(Examples, WasmHandSchedules,
                         ::testing::Combine(::testing::Values(kWasm, kWasmThreads),
                                            ::testing::ValuesIn(testing::kCpuScheduleExamples)));

// Whether the Node.js on PATH runs relaxed SIMD (kiln_wasm.js's own test).
bool node_runs_relaxed_simd() {
  const std::string cmd = "node -e \"console.log(require('" + kiln_share_file("kiln_wasm.js") +
                          "').relaxedSimd())\" 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[64] = {};
  const bool yes = p && fgets(buf, sizeof buf, p) && std::string(buf).rfind("true", 0) == 0;
  if (p) pclose(p);
  return yes;
}

// With relaxed SIMD's multiply-adds, where the engine runs them; where it
// does not (Node.js 18), the load fails saying why.
TEST(WasmRelaxedSimd, HandSchedulesMatchTheInterpreterOrTheEngineSaysWhyNot) {
  ForeignDevice& d = device(kWasmRelaxed);
  const bool runs = node_runs_relaxed_simd();
  int refused = 0;
  for (const ExampleSchedule& e : testing::kCpuScheduleExamples) {
    const std::string err = d.check(testing::prepare_example(e, d.target()), 1);
    if (runs || err.empty()) {
      EXPECT_EQ(err, "") << e;  // (a scalar schedule holds no relaxed instruction)
    } else {
      EXPECT_NE(err.find("this engine does not run relaxed SIMD"), std::string::npos) << err;
      ++refused;
    }
  }
  if (!runs) {
    EXPECT_GT(refused, 0);
    GTEST_SKIP() << "this Node.js does not run relaxed SIMD; its refusal was checked";
  }
}

TEST(WasmEngine, ReportsAWrongAnswer) {
  ForeignDevice& d = device();
  OpProgram add = prepare_op("add:M=4,N=8", d.target());
  add.lowered = prepare_op("mul:M=4,N=8", d.target()).lowered;
  rpc::proto::RunReply r = d.run(add, 1);
  EXPECT_EQ(r.error_kind(), rpc::proto::WRONG_ANSWER) << r.error_message();
}

// `kiln tune-op --target wasm32` builds modules and measures them in V8
// through a local runner of that device, every candidate checked; bench-op
// reproduces the best.
TEST(WasmTune, TunesInNode) {
  const std::string db = testing::scratch_path("wasm.db");
  const std::string workload = "matmul:M=16,N=32,K=8";
  testing::CliRun r = testing::kiln("tune-op " + workload + " --target '" + kWasm +
                                    "' --trials 8 --batch-size 4 --repeat 2 --final-top 2 --db " + db + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("qemu"), std::string::npos) << "V8 is not an emulator\n" << r.out;
  nlohmann::json j = nlohmann::json::parse(testing::last_line(r.out));
  EXPECT_EQ(j["measured_now"], 8) << r.out;
  EXPECT_GT(j["best_gflops"].get<double>(), 0);
  std::vector<tuning::TuningRecord> all;
  tuning::open_database(db)->for_each_record([&](const tuning::TuningRecord& rec) { all.push_back(rec); });
  ASSERT_EQ(all.size(), 8u);
  for (const tuning::TuningRecord& rec : all) {
    EXPECT_EQ(rec.target, Target::parse(kWasm).str());
    EXPECT_EQ(rec.cpu_model.rfind("WebAssembly in Node.js on ", 0), 0u) << rec.cpu_model;
  }
  testing::CliRun bench =
      testing::kiln("bench-op " + workload + " --target '" + kWasm + "' --db " + db + " --check");
  ASSERT_EQ(bench.code, 0) << bench.out;
  EXPECT_NE(bench.out.find("check: max relative error against the reference interpreter"), std::string::npos) << bench.out;
}

// A model compiled for WebAssembly: the folder holds the module and the
// JavaScript that runs it, `kiln run` runs it in Node.js and checks its
// outputs against the reference executor, and the C++ runtime, which
// cannot run it, says so.
TEST(WasmModel, CompilesRunsInNodeAndMatchesTheReference) {
  const std::string model = std::string(KILN_SOURCE_DIR) + "/tests/data/models/vit_tiny/model.onnx";
  const std::string dir = testing::scratch_path("vit-wasm");
  testing::CliRun c = testing::kiln("compile " + model + " --target '" + kWasm + "' -o " + dir);
  ASSERT_EQ(c.code, 0) << c.out;
  for (const char* file : {"kernels.wasm", "kiln_wasm.js", "kiln_model.js", "model.json", "weights.bin"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + file)) << file;
  testing::CliRun r = testing::kiln("run " + dir + " --repeat 2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(testing::last_line(r.out))["engine"], "node") << r.out;
  testing::CliRun checked = testing::kiln("run " + model + " --target '" + kWasm + "' --check --repeat 1");
  ASSERT_EQ(checked.code, 0) << checked.out;
  EXPECT_NE(checked.out.find("check against the reference executor (|got - want| <= 1e-4 max|want| + 1e-3 |want|): ok"),
            std::string::npos)
      << checked.out;
  try {
    graph::CompiledModel::load(dir);
    FAIL() << "loaded a WebAssembly model into this process";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a model compiled for WebAssembly"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln
