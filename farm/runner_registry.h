// The farm's runner registry, on PostgreSQL: which runners a device key
// has, and whether they are alive.
//
// Runners never hold database credentials: `kiln runner --register` tells a
// kilnd, and the daemon writes here on its behalf (announce, then a
// heartbeat every few seconds). A runner whose last heartbeat is older than
// the timeout is lost: it is not given work, and the batch it was measuring
// goes to another runner of its key (farm_runner.h). A heartbeat brings a
// lost runner back. Times are the server's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rpc/measure.h"
#include "tuning_logs/pg_connection.h"

namespace kiln::farm {

struct RegisteredRunner {
  std::string address;
  std::string device_key;
  rpc::DeviceInfo info;
  std::string state;  // "alive", "lost" (heartbeats stopped) or "gone" (left)
  double last_heartbeat = 0;  // unix seconds
  double heartbeat_age_s = 0;
  int64_t busy_job = 0;  // the job measuring on it now; 0: idle
  int64_t measured = 0, errors = 0;
};

// SQL that holds for a live row of the runners table (`prefix`: its alias
// and a dot, or ""): not gone, and its last heartbeat younger than the
// timeout in parameter $`timeout_param`, seconds. The one definition of
// "live" that the registry and the queue's claims share.
std::string live_runner_sql(const std::string& prefix, int timeout_param);

class RunnerRegistry {
 public:
  // Connects and creates or migrates the farm's tables.
  explicit RunnerRegistry(const std::string& url);

  // Records a runner (again, when it was known), alive from now.
  void announce(const std::string& address, const rpc::DeviceInfo& info);
  // False when no runner has this address (it should announce itself).
  bool heartbeat(const std::string& address);
  // A runner that stopped cleanly.
  void leave(const std::string& address);

  // The live runners of a key, idle ones first.
  std::vector<RegisteredRunner> live(const std::string& device_key, double timeout_s);
  // Every runner, by key then address, with its state as of now.
  std::vector<RegisteredRunner> all(double timeout_s);
  // Whether this runner is live now.
  bool is_live(const std::string& address, double timeout_s);

  void set_busy(const std::string& address, int64_t job);
  void count(const std::string& address, int64_t measured, int64_t errors);

 private:
  std::vector<RegisteredRunner> read(const std::string& where, const std::vector<tuning::PgParam>& params);
  tuning::PgConnection c_;
};

}  // namespace kiln::farm
