#include "rpc/runner/server.h"

#include "core/error.h"
#include "rpc/grpc_util.h"

namespace kiln::rpc {
namespace {

// Candidates carry their code: allow batches far above gRPC's 4 MB default.
constexpr int kMaxMessageBytes = 512 << 20;

}  // namespace

RunnerServer::RunnerServer(const std::string& address, RunnerOptions options) {
  if (!is_local_address(address) && options.token.empty())
    KILN_USER_ERROR() << "listening on " << address
                      << " would let anyone on the network run code here: give a --token, or listen on "
                         "loopback (127.0.0.1) or a unix socket";
  if (!is_local_address(address) && !options.tls.enabled())
    KILN_USER_ERROR() << "listening on " << address
                      << " would send the token in the clear: give --tls-cert and --tls-key, or listen on "
                         "loopback (127.0.0.1) or a unix socket";
  const std::shared_ptr<grpc::ServerCredentials> credentials = server_credentials(options.tls);
  service_ = std::make_unique<RunnerService>(std::move(options));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, credentials, &port);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  server_ = builder.BuildAndStart();
  if (!server_) KILN_USER_ERROR() << "cannot listen on " << address;
  address_ = bound_address(address, port);
}

RunnerServer::~RunnerServer() { shutdown(); }

void RunnerServer::wait() { server_->Wait(); }

void RunnerServer::shutdown() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace kiln::rpc
