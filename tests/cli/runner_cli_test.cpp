// `kiln runner` and `kiln bench-op --runner` as a user runs them.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"
#include "rpc/process/child_process.h"
#include "support/scratch.h"

namespace {

using kiln::testing::CliRun;
using kiln::testing::kiln;

nlohmann::json last_json_line(const std::string& s) { return nlohmann::json::parse(kiln::testing::last_line(s)); }

// `kiln runner` on a free loopback port with a token; its address.
struct RunnerProcess {
  kiln::rpc::ChildProcess child;
  std::string address, banner;

  explicit RunnerProcess(const std::string& token) {
    int out[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    child = kiln::rpc::ChildProcess::spawn({KILN_BINARY, "runner", "--listen", "127.0.0.1:0", "--token", token,
                                            "--workdir", kiln::testing::scratch_path("runner-" + token)}, {},
                                           out[1]);
    close(out[1]);
    const std::string ready = "kiln runner: listening on ";
    char buf[1024];
    while (banner.find('\n', banner.find(ready)) == std::string::npos) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 30000) <= 0) break;
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      banner.append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    size_t at = banner.find(ready);
    if (at != std::string::npos) address = banner.substr(at + ready.size(), banner.find('\n', at) - at - ready.size());
  }
};

TEST(RunnerCli, BenchOpThroughALocalRunnerPrintsTheSameJson) {
  CliRun r = kiln("bench-op matmul:M=32,N=24,K=16 --runner local --threads 2 --repeat 3 --json 2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = last_json_line(r.out);
  EXPECT_EQ(j["workload"], "matmul:M=32,N=24,K=16,dtype=float32");
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["times_ms"].size(), 3u);
  EXPECT_GT(static_cast<double>(j["gflops"]), 0);
  EXPECT_GT(static_cast<double>(j["build_ms"]), 0);
  EXPECT_LE(static_cast<double>(j["max_rel_err"]), 1e-4);
  EXPECT_EQ(j["check_passed"], true);
  EXPECT_EQ(static_cast<std::string>(j["runner"]).rfind("unix:", 0), 0u);
}

TEST(RunnerCli, ARunnerPrintsItsDeviceAndServesOnlyTheRightToken) {
  RunnerProcess runner("tok-123");
  ASSERT_FALSE(runner.address.empty()) << runner.banner;
  EXPECT_NE(runner.banner.find("device '"), std::string::npos) << runner.banner;
  EXPECT_NE(runner.banner.find("runs target llvm -mcpu="), std::string::npos) << runner.banner;

  const std::string bench = "bench-op add:M=16,N=16 --repeat 2 --json --runner " + runner.address;
  CliRun refused = kiln(bench + " --token nope");
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("UNAUTHENTICATED"), std::string::npos) << refused.out;
  CliRun missing = kiln(bench);
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("UNAUTHENTICATED"), std::string::npos) << missing.out;

  CliRun ok = kiln(bench + " --token tok-123 2>/dev/null");
  ASSERT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(last_json_line(ok.out)["runner"], runner.address);
  setenv("KILN_RUNNER_TOKEN", "tok-123", 1);
  CliRun from_env = kiln(bench + " 2>/dev/null");
  unsetenv("KILN_RUNNER_TOKEN");
  EXPECT_EQ(from_env.code, 0) << "the token from KILN_RUNNER_TOKEN: " << from_env.out;
}

TEST(RunnerCli, AWrongScheduleIsReportedWithItsErrorKind) {
  // The builder refuses GPU thread axes on a CPU target: a compile error.
  const std::string trace = ::testing::TempDir() + "bind.json";
  FILE* f = fopen(trace.c_str(), "w");
  fputs(R"({"kiln_trace": 1, "instructions": [
      {"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
      {"kind": "get_loops", "inputs": ["b0"], "attrs": [], "outputs": ["l1", "l2", "l3"]},
      {"kind": "bind", "inputs": ["l1"], "attrs": ["threadIdx.x"], "outputs": []}]})",
        f);
  fclose(f);
  CliRun r = kiln("bench-op matmul:M=8,N=8,K=8 --runner local --trace " + trace);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("compile error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threadIdx.x"), std::string::npos) << r.out;
}

}  // namespace
