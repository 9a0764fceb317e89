// No process kiln starts outlives the process that started it, however that
// one ends: a runner's worker dies with the runner, a local runner with the
// tuner or bench-op that spawned it, even when they are SIGKILLed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "rpc/process/child_process.h"
#include "support/scratch.h"

namespace kiln::testing {
namespace {

using namespace std::chrono_literals;

// Direct children of pid, from /proc (every thread's list).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "children");
    pid_t c;
    while (in >> c) out.push_back(c);
  }
  return out;
}

// Gone, or a zombie nobody has reaped yet: either way it runs no more.
bool is_dead(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return true;
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  return close == std::string::npos || stat[close + 2] == 'Z' || stat[close + 2] == 'X';
}

bool dies_within(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (is_dead(pid)) return true;
    std::this_thread::sleep_for(20ms);
  }
  return is_dead(pid);
}

// argv of a process, one string per argument.
std::vector<std::string> argv_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

// A child of `parent` running `kiln SUBCOMMAND`; -1 if none shows up in time.
pid_t wait_for_child(pid_t parent, const std::string& subcommand, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    for (pid_t c : children_of(parent)) {
      std::vector<std::string> argv = argv_of(c);
      if (argv.size() > 1 && argv[1] == subcommand) return c;
    }
    std::this_thread::sleep_for(20ms);
  }
  return -1;
}

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-orphans-XXXXXX").string();
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

TEST(Orphans, AWorkerDiesWithItsRunner) {
  std::string dir = temp_dir();
  rpc::ChildProcess runner = rpc::ChildProcess::spawn(
      {KILN_BINARY, "runner", "--listen", "unix:" + dir + "/r.sock", "--workdir", dir + "/work"}, {},
      open("/dev/null", O_WRONLY | O_CLOEXEC));
  pid_t worker = wait_for_child(runner.pid(), "worker", 30s);
  ASSERT_GT(worker, 0) << "the runner starts its worker";
  ASSERT_FALSE(is_dead(worker));
  ::kill(runner.pid(), SIGKILL);
  EXPECT_TRUE(dies_within(worker, 5s)) << "worker " << worker << " outlived its runner";
  std::filesystem::remove_all(dir);
}

TEST(Orphans, ALocalRunnerDiesWithTheBenchOpThatSpawnedIt) {
  // A measurement long enough to kill bench-op in the middle of it.
  // Killed, bench-op cannot remove its runner's directory: it goes in this
  // process's scratch directory instead of /tmp.
  const std::string tmp = testing::scratch_path("bench-op-tmp");
  std::filesystem::create_directories(tmp);
  pid_t bench = fork();
  ASSERT_GE(bench, 0);
  if (bench == 0) {
    setenv("TMPDIR", tmp.c_str(), 1);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(KILN_BINARY, KILN_BINARY, "bench-op", "matmul:M=64,N=64,K=64", "--runner", "local", "--repeat", "100000",
          "--min-repeat-ms", "10", static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_t runner = wait_for_child(bench, "runner", 30s);
  ASSERT_GT(runner, 0) << "bench-op --runner local spawns a runner";
  pid_t builder = wait_for_child(bench, "worker", 30s);
  ASSERT_GT(builder, 0) << "and has a build worker";
  pid_t worker = wait_for_child(runner, "worker", 30s);
  ASSERT_GT(worker, 0);
  ::kill(bench, SIGKILL);
  int status;
  waitpid(bench, &status, 0);
  EXPECT_TRUE(dies_within(runner, 5s)) << "runner " << runner << " outlived bench-op";
  EXPECT_TRUE(dies_within(worker, 5s)) << "worker " << worker << " outlived bench-op";
  EXPECT_TRUE(dies_within(builder, 5s)) << "build worker " << builder << " outlived bench-op";
}

}  // namespace
}  // namespace kiln::testing
