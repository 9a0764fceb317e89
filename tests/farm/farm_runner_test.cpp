// Measuring through the farm: a batch spread over the live runners of a
// key (real `kiln runner` processes), a runner killed mid-batch or paused
// (SIGSTOP: it fails no call, its heartbeats just stop) loses nothing, and
// with no runner of the key the batch waits and says so.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "core/error.h"
#include "farm/farm_runner.h"
#include "ops/workload.h"
#include "support/faulty_artifacts.h"
#include "support/postgres.h"

namespace kiln::farm {
namespace {

// What kilnd does for its runners: a heartbeat for each address in
// `beating`, every 100 ms, on its own connection.
class Heartbeats {
 public:
  Heartbeats(const std::string& url, std::set<std::string> beating) : registry_(url), beating_(std::move(beating)) {
    thread_ = std::thread([this] {
      while (!done_) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          for (const std::string& a : beating_) registry_.heartbeat(a);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  ~Heartbeats() {
    done_ = true;
    thread_.join();
  }
  void stop(const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    beating_.erase(address);
  }

 private:
  RunnerRegistry registry_;
  std::mutex mu_;
  std::set<std::string> beating_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

rpc::MeasureBatch batch_of(int n) {
  PrimFunc f = ops::build_workload(ops::parse_workload("matmul:M=64,N=64,K=64"));
  rpc::MeasureBatch b;
  b.timing.repeat = 3;
  b.timing.min_repeat_ms = 20;  // each candidate takes a while: time to fail mid-batch
  b.references = {testing::reference(f, Target::host())};
  Artifact a = testing::default_artifact(f, Target::host());
  for (int i = 0; i < n; ++i) b.candidates.push_back(testing::candidate(100 + i, f, a));
  return b;
}

struct TwoRunners {
  rpc::LocalRunner a{{.args = {"--key", "k"}}}, b{{.args = {"--key", "k"}}};
  explicit TwoRunners(RunnerRegistry& r) {
    r.announce(a.address(), a.info());
    r.announce(b.address(), b.info());
  }
};

void expect_all_measured(const rpc::MeasureBatch& b, const std::vector<rpc::MeasureResult>& rs) {
  ASSERT_EQ(rs.size(), b.candidates.size());
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].id, b.candidates[i].id);
    EXPECT_TRUE(rs[i].ok()) << i << ": " << rs[i].message;
    EXPECT_FALSE(rs[i].times_s.empty()) << i;
  }
}

TEST(FarmRunner, ARunnerKilledMidBatchLosesNothing) {
  const std::string url = testing::fresh_postgres_database("killed");
  RunnerRegistry registry(url);
  TwoRunners runners(registry);
  Heartbeats beats(url, {runners.a.address(), runners.b.address()});
  FarmRunner farm(registry, {.device_key = "k", .runner_timeout_s = 5});
  const rpc::MeasureBatch b = batch_of(10);
  int seen = 0;
  std::vector<rpc::MeasureResult> rs = farm.measure(b, [&](const rpc::MeasureResult&) {
    if (++seen == 2) {
      beats.stop(runners.a.address());
      ::kill(runners.a.pid(), SIGKILL);
    }
  });
  expect_all_measured(b, rs);
  EXPECT_EQ(seen, 10) << "every result reported once";
  EXPECT_GT(farm.resent(), 0);
  int64_t measured = 0;
  for (const RegisteredRunner& r : registry.all(5)) measured += r.measured;
  EXPECT_EQ(measured, 10);
}

TEST(FarmRunner, APausedRunnerIsLostAndItsCandidatesGoElsewhere) {
  const std::string url = testing::fresh_postgres_database("paused");
  RunnerRegistry registry(url);
  TwoRunners runners(registry);
  Heartbeats beats(url, {runners.a.address(), runners.b.address()});
  std::vector<std::string> said;
  FarmRunner farm(registry, {.device_key = "k", .runner_timeout_s = 1,
                             .on_wait = [&](const std::string& s) { said.push_back(s); }});
  const rpc::MeasureBatch b = batch_of(8);
  bool paused = false;
  std::vector<rpc::MeasureResult> rs = farm.measure(b, [&](const rpc::MeasureResult&) {
    if (paused) return;
    paused = true;
    beats.stop(runners.a.address());
    ::kill(runners.a.pid(), SIGSTOP);
  });
  ::kill(runners.a.pid(), SIGCONT);
  expect_all_measured(b, rs);
  EXPECT_GT(farm.resent(), 0);
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.front().find(runners.a.address() + " is lost"), std::string::npos) << said.front();
  EXPECT_EQ(registry.all(1).front().address == runners.a.address() ? registry.all(1).front().state
                                                                     : registry.all(1).back().state,
            "lost");
}

TEST(FarmRunner, WithNoRunnerOfTheKeyItWaitsAndSaysSo) {
  const std::string url = testing::fresh_postgres_database("none");
  RunnerRegistry registry(url);
  std::atomic<bool> stop{false};
  std::vector<std::string> said;
  FarmRunner farm(registry, {.device_key = "gpu", .poll_s = 0.05, .on_wait = [&](const std::string& s) {
                               said.push_back(s);
                               stop = true;
                             },
                             .stop = &stop});
  EXPECT_THROW(farm.measure(batch_of(1)), Error);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("waiting for a runner of key 'gpu'"), std::string::npos) << said[0];
}

}  // namespace
}  // namespace kiln::farm
