// A runner's side of a farm (`kiln runner --register DAEMON`): it announces
// itself to a kilnd, then sends heartbeats until it stops, when it says it
// leaves. A daemon that restarts, or that forgot it, is told again; one
// that cannot be reached is tried again every heartbeat, the runner serving
// all the while (a farm outlives any one daemon).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "farm/farm_client.h"

namespace kiln::farm {

class Announcer {
 public:
  // Starts announcing at once, on its own thread. `say` reports what
  // happens ("registered with ...", "cannot reach ...").
  Announcer(const std::string& daemon, FarmClientOptions client, std::string runner_address, rpc::DeviceInfo device,
            std::function<void(const std::string&)> say = {});
  // Says it leaves, and stops.
  ~Announcer();

 private:
  void loop();

  FarmClient client_;
  std::string address_;
  rpc::DeviceInfo device_;
  std::function<void(const std::string&)> say_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace kiln::farm
