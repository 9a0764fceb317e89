// kilnd: a tuning daemon of a farm. It serves the Farm service (runners
// announce themselves, users submit and follow jobs) and runs jobs from the
// shared queue, `jobs` at a time, each with the tuner against the runners
// of its device key (job_runner.h). Any number of daemons share one
// database; each takes the jobs it claims and nothing else.
//
//   Daemon d({.db_url = url, .listen = "127.0.0.1:0"});
//   std::thread t([&] { d.run(); });   // until d.shutdown()
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "farm/farm_service.h"
#include "farm/job_runner.h"
#include "rpc/grpc_util.h"

namespace kiln::farm {

struct DaemonOptions {
  std::string db_url;
  std::string listen = "127.0.0.1:9200";
  std::string name;          // the lease holder's name; default host:pid
  Tokens tokens;             // required off loopback
  rpc::TlsFiles tls;         // required off loopback
  std::string runner_token;  // what runners are dialled with; default: the tokens' runner token
  std::string runner_tls_ca; // the CA of the runners' certificates; empty: plain connections
  int jobs = 1;              // jobs run at once
  double lease_s = 30;
  double heartbeat_s = 2;
  double runner_timeout_s = 10;
  double poll_s = 1;         // how often an idle worker looks for a job
  int build_workers = 0;     // per job; 0: the target's cores
};

class Daemon {
 public:
  // Connects to the database (creating or migrating the farm's tables) and
  // listens. Throws kiln::Error when it would listen off loopback without
  // tokens and TLS, or cannot listen or connect.
  explicit Daemon(DaemonOptions o);
  ~Daemon();

  // The address clients dial (the port filled in for port 0).
  const std::string& address() const { return address_; }
  const std::string& name() const { return o_.name; }

  // Runs the job workers and serves until shutdown(); jobs in flight stop
  // after their batch and go back to the queue.
  void run();
  void shutdown();

 private:
  void work(int worker);

  DaemonOptions o_;
  std::unique_ptr<FarmService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::atomic<bool> stopping_{false};
};

}  // namespace kiln::farm
