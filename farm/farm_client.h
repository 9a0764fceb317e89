// The client side of the Farm service (rpc/proto/farm.proto): what `kiln
// job`, `kiln farm status` and `kiln runner --register` call a kilnd with.
// Every call throws kiln::Error naming the daemon and the reason
// ("daemon at ADDR refused the request: UNAUTHENTICATED: ...").
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "farm/job.h"
#include "rpc/measure.h"
#include "rpc/proto/farm.grpc.pb.h"

namespace kiln::farm {

struct FarmClientOptions {
  std::string token;
  std::string tls_ca;  // PEM file to trust the daemon's certificate by; empty: no TLS
};

class FarmClient {
 public:
  FarmClient(const std::string& address, FarmClientOptions o = {});

  // A runner's calls. register_runner returns the daemon's heartbeat
  // period and timeout.
  std::pair<double, double> register_runner(const std::string& runner_address, const rpc::DeviceInfo& device);
  bool heartbeat(const std::string& runner_address);  // false: announce again
  void leave(const std::string& runner_address);

  // A user's. Jobs come back as the JSON of farm::Job (plus "waiting").
  nlohmann::json submit(const JobSpec& spec);
  nlohmann::json job(int64_t id);
  std::vector<nlohmann::json> jobs(int limit = 100);
  nlohmann::json cancel(int64_t id);
  // Calls on_line for each log line after `after`; with follow, until the
  // job ends. Returns the job as it ended (follow) or null.
  nlohmann::json logs(int64_t id, int64_t after, bool follow, const std::function<void(double at, const std::string&)>& on_line);
  // {"runners": [...], "jobs": {state: count}}
  nlohmann::json status();

  const std::string& address() const { return address_; }

 private:
  [[noreturn]] void fail(const grpc::Status& s) const;
  void prepare(grpc::ClientContext& ctx) const;
  // One unary call with the protocol version, token and deadline set.
  template <typename Request, typename Reply>
  Reply call(grpc::Status (rpc::proto::Farm::Stub::*method)(grpc::ClientContext*, const Request&, Reply*), Request req);

  std::string address_;
  FarmClientOptions o_;
  std::unique_ptr<rpc::proto::Farm::Stub> stub_;
};

}  // namespace kiln::farm
