// kiln_farm_bench: what a farm costs, on one machine (docs/farm.md).
//
//   queue       jobs claimed and finished per second by 4 daemons' worth of
//               connections racing on the PostgreSQL queue (FOR UPDATE SKIP
//               LOCKED), no tuning: what the queue itself sustains;
//   end to end  cheap jobs (one candidate of a small add each) through
//               --daemons kilnd processes and --runners registered runners:
//               jobs per second from the first submit to the last done;
//   overhead    the same batch measured by a local runner (a child on a
//               unix socket) and through the farm (a registered runner on
//               loopback TCP, found in the registry): milliseconds per
//               candidate each, alternating, and the difference.
//
// Starts its own PostgreSQL server (scripts/local-postgres) and removes it.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/guarded_main.h"
#include "core/error.h"
#include "farm/farm_client.h"
#include "farm/farm_runner.h"
#include "farm/job_queue.h"
#include "farm/local_farm.h"
#include "ops/workload.h"
#include "rpc/builder.h"
#include "rpc/runner/device.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::bench {
namespace {

using Clock = std::chrono::steady_clock;
double s_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// A PostgreSQL server for the run, with a database per phase.
class Server {
 public:
  Server() : pg_(std::string(KILN_SOURCE_DIR) + "/scripts/local-postgres") {}
  std::string database(const std::string& name) { return farm::create_postgres_database(pg_.url(), name); }

 private:
  farm::LocalPostgres pg_;
};

farm::JobSpec tiny_job(int n, const std::string& key) {
  ops::Workload w = ops::parse_workload("add:M=8,N=" + std::to_string(n));
  farm::JobSpec s;
  s.tasks = {{tuning::workload_entry(ops::build_workload(w), w.op, w.str(), ops::workload_flops(w))}};
  s.name = w.str();
  s.tune.target = Target::host();
  s.device_key = key;
  s.tune.trials = 1;
  s.tune.batch_size = 1;
  s.tune.timing.repeat = 1;
  s.tune.final_top = 0;
  s.tune.strategy = "random";
  return s;
}

nlohmann::json queue_phase(Server& server, int jobs, int racers) {
  const std::string url = server.database("queue");
  farm::JobQueue q(url);
  farm::RunnerRegistry(url).announce("127.0.0.1:1", rpc::DeviceInfo{.device_key = "q"});
  const farm::JobSpec spec = tiny_job(8, "q");
  auto t0 = Clock::now();
  for (int i = 0; i < jobs; ++i) q.submit(spec, "bench");
  const double submit_s = s_since(t0);
  t0 = Clock::now();
  std::vector<std::thread> threads;
  std::atomic<int> done{0};
  for (int r = 0; r < racers; ++r)
    threads.emplace_back([&, r] {
      farm::JobQueue mine(url);
      const std::string me = "racer-" + std::to_string(r);
      while (auto j = mine.claim(me, {})) {
        mine.finish(j->id, me, farm::JobState::kDone, "");
        ++done;
      }
    });
  for (std::thread& t : threads) t.join();
  const double claim_s = s_since(t0);
  std::cout << "queue: " << jobs << " jobs submitted at " << std::fixed << std::setprecision(0) << jobs / submit_s
            << "/s; claimed and finished by " << racers << " racers at " << done / claim_s << " jobs/s\n";
  return {{"jobs", jobs}, {"racers", racers}, {"submit_per_s", jobs / submit_s}, {"claim_finish_per_s", done / claim_s}};
}

nlohmann::json end_to_end_phase(Server& server, int daemons, int runners, int jobs) {
  const std::string url = server.database("e2e");
  std::vector<farm::FarmProcess> ds, rs;
  for (int i = 0; i < daemons; ++i)
    ds.push_back(farm::start_kilnd(url, {"--build-workers", "1", "--heartbeat", "1", "--runner-timeout", "5"}));
  for (int i = 0; i < runners; ++i) rs.push_back(farm::start_runner(ds[static_cast<size_t>(i) % ds.size()].address, "e2e"));
  farm::FarmClient client(ds.front().address);
  while (client.status()["runners"].size() < static_cast<size_t>(runners)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<int64_t> ids;
  auto t0 = Clock::now();
  for (int i = 0; i < jobs; ++i) ids.push_back(client.submit(tiny_job(16 + i, "e2e"))["id"]);
  for (;;) {
    const nlohmann::json s = client.status();
    if (s["jobs"].value("done", 0) + s["jobs"].value("failed", 0) >= jobs) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const double wall = s_since(t0);
  const nlohmann::json s = client.status();
  std::cout << "end to end: " << jobs << " one-candidate jobs through " << daemons << " daemons and " << runners
            << " runners in " << std::setprecision(1) << wall << " s: " << std::setprecision(2) << jobs / wall
            << " jobs/s (" << s["jobs"].value("failed", 0) << " failed)\n";
  return {{"daemons", daemons}, {"runners", runners}, {"jobs", jobs}, {"wall_s", wall}, {"jobs_per_s", jobs / wall},
          {"failed", s["jobs"].value("failed", 0)}};
}

nlohmann::json overhead_phase(Server& server, int candidates, int rounds) {
  const std::string url = server.database("overhead");
  farm::FarmProcess daemon = farm::start_kilnd(url, {"--heartbeat", "1"});
  farm::FarmProcess remote = farm::start_runner(daemon.address, "one");
  farm::RunnerRegistry registry(url);
  while (registry.live("one", 10).empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  farm::FarmRunner farm_runner(registry, {.device_key = "one"});
  rpc::LocalRunner local;

  const Target target = Target::host();
  ops::Workload w = ops::parse_workload("add:M=64,N=64");
  PrimFunc f = ops::build_workload(w);
  rpc::Builder builder({.workers = 1});
  rpc::BuildResult built = builder.build({{f, std::nullopt, target}}).front();
  rpc::MeasureBatch batch;
  batch.timing.warmup = 1;
  batch.timing.number = 1;
  batch.timing.repeat = 3;
  batch.references = {{workload_key(f), built.artifact}};
  for (int i = 0; i < candidates; ++i)
    batch.candidates.push_back({static_cast<uint64_t>(i), built.artifact, built.args, workload_key(f), 1e-5});
  local.measure(batch);  // both compute and cache the reference first
  farm_runner.measure(batch);
  std::vector<double> local_ms, farm_ms;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    local.measure(batch);
    local_ms.push_back(s_since(t0) * 1e3 / candidates);
    t0 = Clock::now();
    farm_runner.measure(batch);
    farm_ms.push_back(s_since(t0) * 1e3 / candidates);
  }
  const double l = median(local_ms), fm = median(farm_ms);
  std::cout << "overhead: " << candidates << " candidates of " << w.str() << ", " << rounds
            << " rounds alternating: local runner " << std::setprecision(3) << l << " ms per candidate, through the farm "
            << fm << " ms (+" << fm - l << " ms)\n";
  return {{"workload", w.str()}, {"candidates", candidates}, {"rounds", rounds}, {"local_ms_per_candidate", l},
          {"farm_ms_per_candidate", fm}, {"overhead_ms_per_candidate", fm - l}, {"local_ms", local_ms}, {"farm_ms", farm_ms}};
}

int run(int argc, char** argv) {
  int queue_jobs = 2000, racers = 4, daemons = 4, runners = 8, jobs = 32, candidates = 64, rounds = 5;
  std::string out_path;
  CLI::App app{"kiln_farm_bench: what a farm costs on one machine"};
  app.add_option("--queue-jobs", queue_jobs)->capture_default_str();
  app.add_option("--racers", racers, "connections racing on the queue")->capture_default_str();
  app.add_option("--daemons", daemons)->capture_default_str();
  app.add_option("--runners", runners)->capture_default_str();
  app.add_option("--jobs", jobs, "end-to-end jobs")->capture_default_str();
  app.add_option("--candidates", candidates, "per overhead batch")->capture_default_str();
  app.add_option("--rounds", rounds, "overhead batches each way")->capture_default_str();
  app.add_option("--out", out_path, "write the results as JSON here");
  CLI11_PARSE(app, argc, argv);

  std::cout << "cpu: " << rpc::cpu_model_name() << " (" << Target::host().mcpu() << "), "
            << std::thread::hardware_concurrency() << " threads\n";
  Server server;
  nlohmann::json out = {{"cpu", rpc::cpu_model_name()}, {"mcpu", Target::host().mcpu()},
                        {"threads", std::thread::hardware_concurrency()}};
  out["queue"] = queue_phase(server, queue_jobs, racers);
  out["end_to_end"] = end_to_end_phase(server, daemons, runners, jobs);
  out["overhead"] = overhead_phase(server, candidates, rounds);
  if (!out_path.empty()) std::ofstream(out_path) << out.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_farm_bench", kiln::bench::run, argc, argv); }
