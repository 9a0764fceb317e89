// Serving the Runner service on an address: what `kiln runner` does.
//
// Addresses are gRPC's: "unix:/path/to.sock", "127.0.0.1:9190",
// "[::1]:0" (port 0: any free port), "0.0.0.0:9190". A runner executes
// what it is sent, so only loopback and unix sockets may go without a
// token: anywhere else, start() refuses to listen unless options.token is
// set.
#pragma once

#include <memory>
#include <string>

#include "rpc/grpc_util.h"
#include "rpc/runner/runner_service.h"

namespace kiln::rpc {

class RunnerServer {
 public:
  // Listens and starts serving. Throws kiln::Error when the address needs a
  // token that is missing, or cannot be bound.
  RunnerServer(const std::string& address, RunnerOptions options);
  ~RunnerServer();

  // The address clients dial: the bound port filled in for port 0.
  const std::string& address() const { return address_; }
  const DeviceInfo& device_info() const { return service_->device_info(); }

  // Blocks until shutdown() is called from another thread.
  void wait();
  void shutdown();

 private:
  std::unique_ptr<RunnerService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace kiln::rpc
