// The kiln binary as a user runs it: exit codes, messages, JSON output.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"

namespace {

using kiln::testing::CliRun;
using kiln::testing::kiln;
using kiln::testing::last_line;

TEST(Cli, BenchOpCheckJson) {
  CliRun r = kiln("bench-op matmul:M=32,N=24,K=16 --threads 2 --repeat 2 --check --json 2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(last_line(r.out));
  EXPECT_EQ(j["workload"], "matmul:M=32,N=24,K=16,dtype=float32");
  EXPECT_EQ(static_cast<std::string>(j["workload_key"]).rfind("v1-", 0), 0u);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_GT(static_cast<double>(j["median_ms"]), 0);
  EXPECT_GT(static_cast<double>(j["gflops"]), 0);
  EXPECT_LE(static_cast<double>(j["max_rel_err"]), 1e-4);
  EXPECT_TRUE(static_cast<std::string>(j["target"]).rfind("llvm", 0) == 0);
}

TEST(Cli, WorkloadKeyIsStableAcrossProcesses) {
  auto key = [] {
    CliRun r = kiln("bench-op add:M=4,N=4 --repeat 1 --json 2>/dev/null");
    nlohmann::json j = nlohmann::json::parse(last_line(r.out));
    return static_cast<std::string>(j["workload_key"]);
  };
  EXPECT_EQ(key(), key());
}

struct BadInput {
  const char* args;
  const char* message;
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsTwoNamingTheBadPart) {
  CliRun r = kiln(GetParam().args);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(GetParam().message), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    All, CliBadInput,
    ::testing::Values(BadInput{"bench-op conv3d:N=1", "unknown op 'conv3d'"},
                      BadInput{"bench-op matmul:M=4,N=4", "missing key K"},
                      BadInput{"bench-op matmul:M=4,N=4,K=4,Z=1", "unknown key 'Z'"},
                      BadInput{"bench-op matmul:M=four,N=4,K=4", "M='four' is not an integer"},
                      BadInput{"bench-op matmul:M=4,N=4,K=4,dtype=float13", "float13"},
                      BadInput{"bench-op 'matmul:M=4,N=4,K=4' --target 'llvm -mcpu=nonesuch'", "nonesuch"},
                      BadInput{"bench-op 'matmul:M=4,N=4,K=4' --target 'vulkan'", "vulkan"},
                      BadInput{"bench-op 'matmul:M=4,N=4,K=4' --target 'llvm -num-cores=0'", "num-cores"},
                      BadInput{"print add:M=4", "missing key N"},
                      BadInput{"bench-op add:M=4,N=4 --token t", "--token requires --runner"},
                      BadInput{"bench-op add:M=4,N=4 --min-repeat-ms -1", "--min-repeat-ms: Value -1 not in range"},
                      BadInput{"bench-op add:M=4,N=4 --runner unix:/nonexistent/r.sock", "cannot reach runner at unix:/nonexistent/r.sock"},
                      BadInput{"bench-op add:M=4,N=4 --runner local --postprocess-again", "drop --runner"},
                      BadInput{"runner --listen 0.0.0.0:0", "give a --token"},
                      BadInput{"runner --listen 127.0.0.1:0 --device-target 'llvm -mcpu=nonesuch'", "nonesuch"},
                      BadInput{"frobnicate", "frobnicate"}));

TEST(Cli, PrintShowsBlockAndLoweredForms) {
  CliRun block = kiln("print matmul:M=8,N=8,K=4");
  ASSERT_EQ(block.code, 0) << block.out;
  EXPECT_NE(block.out.find("T.block(\"C\")"), std::string::npos) << block.out;
  EXPECT_NE(block.out.find("T.init()"), std::string::npos) << block.out;
  // K=8: longer than a short loop, which would unroll (its init guard gone).
  CliRun lowered = kiln("print matmul:M=8,N=8,K=8 --lowered");
  ASSERT_EQ(lowered.code, 0) << lowered.out;
  EXPECT_EQ(lowered.out.find("T.block"), std::string::npos) << lowered.out;
  EXPECT_NE(lowered.out.find("if k == 0"), std::string::npos) << lowered.out;
  CliRun all = kiln("print matmul:M=8,N=8,K=4 --print-after-all");
  EXPECT_NE(all.out.find("# after flatten_buffers"), std::string::npos) << all.out;
}

const std::string kLoopTrace = std::string(KILN_SOURCE_DIR) + "/examples/schedules/matmul_1024_loops.json";

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  FILE* f = fopen(path.c_str(), "w");
  fputs(text.c_str(), f);
  fclose(f);
  return path;
}

TEST(Cli, BenchOpWithTrace) {
  // The example schedule splits by 8 and 32: odd sizes exercise its predicates.
  CliRun r = kiln("bench-op matmul:M=40,N=72,K=16 --trace " + kLoopTrace + " --threads 2 --repeat 1 --check --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(last_line(r.out));
  EXPECT_LE(static_cast<double>(j["max_rel_err"]), 1e-4);
  EXPECT_EQ(j["trace"], kLoopTrace);
}

TEST(Cli, BenchOpPostprocessesAgainWhenAsked) {
  // A hand schedule has no postprocessing to redo: it applies as it is, and
  // the kernel still matches the interpreter.
  CliRun r = kiln("bench-op matmul:M=40,N=72,K=16 --trace " + kLoopTrace +
                  " --postprocess-again --threads 2 --repeat 1 --check --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_LE(static_cast<double>(nlohmann::json::parse(last_line(r.out))["max_rel_err"]), 1e-4);
}

TEST(Cli, PrintWithTrace) {
  CliRun r = kiln("print matmul:M=16,N=64,K=8 --trace " + kLoopTrace);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("T.parallel(2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("T.vectorized(32)"), std::string::npos) << r.out;
}

TEST(Cli, TraceThatDoesNotFitExitsTwo) {
  CliRun other_op = kiln("bench-op add:M=8,N=8 --trace " + kLoopTrace);
  EXPECT_EQ(other_op.code, 2) << other_op.out;
  EXPECT_NE(other_op.out.find("trace instruction 0: (get_block) get_block: no block named 'C'"), std::string::npos)
      << other_op.out;

  std::string bad_factor = write_temp("bad_factor.json", R"({"kiln_trace": 1, "instructions": [
      {"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
      {"kind": "get_loops", "inputs": ["b0"], "attrs": [], "outputs": ["l1", "l2", "l3"]},
      {"kind": "split", "inputs": ["l1", 2, 2], "attrs": [], "outputs": ["l4", "l5"]}]})");
  CliRun r = kiln("print matmul:M=8,N=8,K=8 --trace " + bad_factor);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("trace instruction 2: (split) split: factors of loop 'i0' multiply to 4, less than its extent 8"),
            std::string::npos)
      << r.out;

  CliRun missing = kiln("bench-op matmul:M=8,N=8,K=8 --trace /nonexistent/t.json");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("cannot read trace file '/nonexistent/t.json'"), std::string::npos) << missing.out;

  CliRun malformed = kiln("bench-op matmul:M=8,N=8,K=8 --trace " + write_temp("bad.json", "{\"kiln_trace\": 1,"));
  EXPECT_EQ(malformed.code, 2) << malformed.out;
  EXPECT_NE(malformed.out.find("trace is not valid JSON"), std::string::npos) << malformed.out;
}

TEST(Cli, GpuThreadBindingOnTheCpuExitsTwo) {
  std::string bound = write_temp("bound.json", R"({"kiln_trace": 1, "instructions": [
      {"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
      {"kind": "get_loops", "inputs": ["b0"], "attrs": [], "outputs": ["l1", "l2", "l3"]},
      {"kind": "bind", "inputs": ["l1"], "attrs": ["threadIdx.x"], "outputs": []}]})");
  CliRun r = kiln("bench-op matmul:M=8,N=8,K=8 --trace " + bound);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("loop 'i0' of matmul is bound to threadIdx.x: the llvm target runs on the CPU and has no GPU "
                       "thread axes"),
            std::string::npos)
      << r.out;
}

}  // namespace
