// The farm's job queue and runner registry on a real PostgreSQL server:
// daemons racing for jobs never share one, a dead daemon's job is taken up
// again when its lease runs out, a job waits for a live runner of its key
// and says so, and only a job's owner or an admin cancels it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "support/error_of.h"
#include "farm/job_queue.h"
#include "farm/runner_registry.h"
#include "support/postgres.h"

namespace kiln::farm {
namespace {

JobSpec spec(const std::string& key, int priority = 0) {
  JobSpec s;
  s.tasks = {{{"k1", "{}", "matmul", "matmul:M=8,N=8,K=8", 1024}}};
  s.name = "matmul:M=8,N=8,K=8";
  s.tune.target = Target::parse("llvm -num-cores=2");
  s.device_key = key;
  s.tune.trials = 8;
  s.priority = priority;
  return s;
}

rpc::DeviceInfo device(const std::string& key) {
  rpc::DeviceInfo d;
  d.device_key = key;
  d.cpu_model = "AMD EPYC";
  d.num_cores = 2;
  d.targets = {"llvm -num-cores=2"};
  return d;
}

TEST(JobQueue, FourDaemonsRacingNeverClaimOneJobTwice) {
  const std::string url = testing::fresh_postgres_database("race");
  JobQueue q(url);
  RunnerRegistry(url).announce("127.0.0.1:1", device("cpu"));
  constexpr int kJobs = 60;
  for (int i = 0; i < kJobs; ++i) q.submit(spec("cpu"), "alice");

  std::mutex mu;
  std::map<int64_t, std::vector<std::string>> claimed;
  std::vector<std::thread> daemons;
  for (int d = 0; d < 4; ++d)
    daemons.emplace_back([&, d] {
      JobQueue mine(url);
      const std::string me = "daemon-" + std::to_string(d);
      while (auto job = mine.claim(me, {})) {
        {
          std::lock_guard<std::mutex> lock(mu);
          claimed[job->id].push_back(me);
        }
        EXPECT_TRUE(mine.finish(job->id, me, JobState::kDone, "ok"));
      }
    });
  for (std::thread& t : daemons) t.join();
  EXPECT_EQ(claimed.size(), static_cast<size_t>(kJobs));
  for (const auto& [id, by] : claimed) EXPECT_EQ(by.size(), 1u) << "job " << id << " was claimed more than once";
  for (const Job& j : q.list(kJobs)) EXPECT_EQ(j.state, JobState::kDone);
}

TEST(JobQueue, AJobWaitsForALiveRunnerOfItsKeyAndSaysSo) {
  const std::string url = testing::fresh_postgres_database("waits");
  JobQueue q(url);
  RunnerRegistry r(url);
  r.announce("127.0.0.1:1", device("cpu"));
  const int64_t id = q.submit(spec("gpu"), "alice");
  EXPECT_FALSE(q.claim("d", {})) << "no runner of key gpu";
  const Job waiting = *q.get(id);
  EXPECT_EQ(waiting.state, JobState::kQueued);
  EXPECT_NE(q.waiting_reason(waiting, 10).find("no runner of key 'gpu' is live"), std::string::npos);
  r.announce("127.0.0.1:2", device("gpu"));
  EXPECT_EQ(q.waiting_reason(waiting, 10), "");
  std::optional<Job> job = q.claim("d", {});
  ASSERT_TRUE(job);
  EXPECT_EQ(job->id, id);
  EXPECT_EQ(job->spec.device_key, "gpu");
  EXPECT_EQ(job->spec.tasks.size(), 1u);
}

TEST(JobQueue, HigherPriorityFirstThenOldest) {
  const std::string url = testing::fresh_postgres_database("priority");
  JobQueue q(url);
  RunnerRegistry(url).announce("127.0.0.1:1", device("cpu"));
  const int64_t low = q.submit(spec("cpu", 0), "a"), high = q.submit(spec("cpu", 5), "a"), low2 = q.submit(spec("cpu", 0), "a");
  std::vector<int64_t> order;
  while (auto j = q.claim("d", {})) order.push_back(j->id);
  EXPECT_EQ(order, (std::vector<int64_t>{high, low, low2}));
}

TEST(JobQueue, ADeadDaemonsJobIsTakenUpWhenItsLeaseRunsOut) {
  const std::string url = testing::fresh_postgres_database("lease");
  JobQueue q(url);
  RunnerRegistry(url).announce("127.0.0.1:1", device("cpu"));
  const int64_t id = q.submit(spec("cpu"), "alice");
  ASSERT_TRUE(q.claim("dead", {.lease_s = 0.5}));
  q.set_progress(id, "dead", {{"trials_done", 4}});
  EXPECT_FALSE(q.claim("alive", {.lease_s = 30})) << "the lease still holds";
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  std::optional<Job> again = q.claim("alive", {.lease_s = 30});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, id);
  EXPECT_EQ(again->attempts, 2);
  EXPECT_EQ(again->progress["trials_done"], 4) << "what the first daemon reported stays";
  // The first daemon, should it wake up, holds nothing any more.
  EXPECT_FALSE(q.renew(id, "dead", 30));
  EXPECT_FALSE(q.finish(id, "dead", JobState::kFailed, "woke up"));
  EXPECT_TRUE(q.renew(id, "alive", 30));
  EXPECT_TRUE(q.finish(id, "alive", JobState::kDone, "ok"));
  EXPECT_EQ(q.get(id)->state, JobState::kDone);
  EXPECT_FALSE(q.claim("alive", {})) << "a finished job is never claimed";
}

TEST(JobQueue, OnlyTheOwnerOrAnAdminCancels) {
  const std::string url = testing::fresh_postgres_database("cancel");
  JobQueue q(url);
  RunnerRegistry(url).announce("127.0.0.1:1", device("cpu"));
  const int64_t queued = q.submit(spec("cpu"), "alice");
  EXPECT_NE(testing::error_of([&] { q.cancel(queued, "bob", false); }).find("belongs to alice"), std::string::npos);
  EXPECT_EQ(q.get(queued)->state, JobState::kQueued);
  q.cancel(queued, "alice", false);
  EXPECT_EQ(q.get(queued)->state, JobState::kCancelled);
  EXPECT_NE(testing::error_of([&] { q.cancel(queued, "alice", false); }).find("has already ended"), std::string::npos);
  EXPECT_NE(testing::error_of([&] { q.cancel(999, "alice", false); }).find("no job 999"), std::string::npos);

  const int64_t running = q.submit(spec("cpu"), "alice");
  ASSERT_EQ(q.claim("d", {})->id, running);
  EXPECT_TRUE(q.renew(running, "d", 30));
  q.cancel(running, "root", /*admin=*/true);
  EXPECT_FALSE(q.renew(running, "d", 30)) << "the daemon learns of it when it renews";
  EXPECT_TRUE(q.finish(running, "d", JobState::kCancelled, "cancelled by root"));
}

TEST(JobQueue, LogsComeBackInOrderFromWhereTheReaderWas) {
  const std::string url = testing::fresh_postgres_database("logs");
  JobQueue q(url);
  const int64_t id = q.submit(spec("cpu"), "alice");
  q.log(id, "round 1: 8/64 trials");
  q.log(id, "round 2: 16/64 trials");
  std::vector<LogLine> all = q.logs(id);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].line, "round 2: 16/64 trials");
  q.log(id, "round 3: 24/64 trials");
  std::vector<LogLine> more = q.logs(id, all.back().id);
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].line, "round 3: 24/64 trials");
}

TEST(RunnerRegistry, ARunnerIsLostWhenItsHeartbeatsStopAndBackWhenTheyResume) {
  const std::string url = testing::fresh_postgres_database("registry");
  RunnerRegistry r(url);
  r.announce("127.0.0.1:1", device("cpu"));
  r.announce("127.0.0.1:2", device("cpu"));
  EXPECT_FALSE(r.heartbeat("127.0.0.1:9")) << "an unknown runner must announce itself";
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_TRUE(r.heartbeat("127.0.0.1:2"));
  std::vector<RegisteredRunner> live = r.live("cpu", 0.5);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].address, "127.0.0.1:2");
  std::vector<RegisteredRunner> all = r.all(0.5);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].state, "lost");
  EXPECT_EQ(all[0].info.cpu_model, "AMD EPYC");
  EXPECT_EQ(all[1].state, "alive");
  EXPECT_TRUE(r.heartbeat("127.0.0.1:1"));
  EXPECT_TRUE(r.is_live("127.0.0.1:1", 0.5));
  r.leave("127.0.0.1:1");
  EXPECT_FALSE(r.is_live("127.0.0.1:1", 10));
  EXPECT_FALSE(r.heartbeat("127.0.0.1:1")) << "a runner that left announces itself again";
  r.count("127.0.0.1:2", 64, 3);
  r.set_busy("127.0.0.1:2", 7);
  EXPECT_EQ(r.all(10)[1].measured, 64);
  EXPECT_EQ(r.all(10)[1].busy_job, 7);
}

}  // namespace
}  // namespace kiln::farm
