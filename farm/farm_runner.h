// The runner a farm's job measures on: whichever runners of its device key
// are live in the registry (runner_registry.h), behind the same Runner
// interface the tuner uses for one local or remote runner.
//
// A batch is split among the live runners, each measuring its share one
// candidate at a time, so N runners measure N candidates at once. When a
// runner fails mid-batch (killed, unreachable) or is lost (its heartbeats
// stop: a paused process never fails a call, so the call is cancelled), the
// candidates it had not answered go to the runners still live, and every
// result already received is kept. With no runner live it waits, saying so
// through on_wait, and goes on as soon as one announces itself.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "farm/runner_registry.h"
#include "rpc/proto/runner.grpc.pb.h"
#include "rpc/runner_client.h"

namespace kiln::farm {

struct FarmRunnerOptions {
  std::string device_key;
  std::string token;              // the farm's runner token
  std::string tls_ca;             // PEM file to trust the runners' certificates by; empty: plain
  double runner_timeout_s = 10;   // heartbeat age at which a runner is lost
  double poll_s = 0.25;           // how often liveness is checked during a batch
  int64_t job = 0;                // shown as the runners' busy job
  std::function<void(const std::string&)> on_wait;  // "waiting for a runner of key ..."
  const std::atomic<bool>* stop = nullptr;          // while waiting for a runner: give up
};

class FarmRunner final : public rpc::Runner {
 public:
  // The registry is used from the calling thread only.
  FarmRunner(RunnerRegistry& registry, FarmRunnerOptions options);

  // The device of a live runner of the key (waiting for one).
  rpc::DeviceInfo info() override;
  // Throws kiln::Error only when stopped while waiting for a runner.
  std::vector<rpc::MeasureResult> measure(const rpc::MeasureBatch& batch,
                                          const rpc::ResultCallback& on_result = {}) override;
  std::string address() const override { return "farm key '" + o_.device_key + "'"; }

  // Candidates sent again because their runner failed or was lost.
  int64_t resent() const { return resent_; }

 private:
  std::vector<RegisteredRunner> wait_for_runners();
  rpc::proto::Runner::Stub& stub(const std::string& address);

  RunnerRegistry& registry_;
  FarmRunnerOptions o_;
  std::map<std::string, std::unique_ptr<rpc::proto::Runner::Stub>> stubs_;
  int64_t resent_ = 0;
};

}  // namespace kiln::farm
