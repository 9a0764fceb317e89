// What kiln's gRPC services (the runner, the farm daemon) and their clients
// share: tokens on calls, TLS from certificate files, and status names for
// messages.
//
// A token travels as "authorization: Bearer TOKEN" metadata. It protects
// nothing on a plain connection across a network, so anything that is not
// loopback or a unix socket also takes TLS: the server's certificate and
// key, the clients' CA file to trust it.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace kiln::rpc {

// Adds the token to a call (nothing when it is empty).
void authorize(grpc::ClientContext& ctx, const std::string& token);
// The token a call carries; "" when none.
std::string presented_token(const grpc::ServerContext& ctx);
// Compares without an early exit, so timing says nothing about the secret.
bool same_secret(const std::string& given, const std::string& secret);

// Whether an address is reachable only from this machine (loopback, unix
// sockets).
bool is_local_address(const std::string& address);

// The address clients dial for a server asked to listen on `listen`: the
// port gRPC bound filled in where `listen` said port 0 ("127.0.0.1:0" ->
// "127.0.0.1:40213"); unix sockets and fixed ports as they are.
std::string bound_address(const std::string& listen, int port);

struct TlsFiles {
  std::string cert, key;  // PEM: the server's certificate chain and private key
  bool enabled() const { return !cert.empty(); }
};
// TLS credentials from the files, or insecure ones when none are given.
// Throws kiln::Error naming a file that cannot be read.
std::shared_ptr<grpc::ServerCredentials> server_credentials(const TlsFiles& tls);
// A client's: TLS trusting the CA certificate in `ca_file` (PEM), or
// insecure when it is empty.
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const std::string& ca_file);

// "UNAUTHENTICATED" for grpc::StatusCode::UNAUTHENTICATED.
const char* status_code_name(grpc::StatusCode c);

}  // namespace kiln::rpc
