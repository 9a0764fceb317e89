#include "rpc/grpc_util.h"


#include "core/error.h"
#include "core/file.h"

namespace kiln::rpc {
namespace {

std::string read_pem(const std::string& path, const char* what) {
  return read_file(path, std::string("the ") + what + " file");
}

std::string host_of(const std::string& address) {
  std::string a = address;
  if (a.rfind("ipv4:", 0) == 0) a = a.substr(5);
  if (a.rfind("ipv6:", 0) == 0) a = a.substr(5);
  if (!a.empty() && a[0] == '[') return a.substr(1, a.find(']') - 1);
  size_t colon = a.rfind(':');
  return colon == std::string::npos ? a : a.substr(0, colon);
}

}  // namespace

void authorize(grpc::ClientContext& ctx, const std::string& token) {
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
}

std::string presented_token(const grpc::ServerContext& ctx) {
  auto range = ctx.client_metadata().equal_range("authorization");
  for (auto it = range.first; it != range.second; ++it) {
    std::string value(it->second.data(), it->second.size());
    if (value.rfind("Bearer ", 0) == 0) return value.substr(7);
  }
  return "";
}

bool same_secret(const std::string& given, const std::string& secret) {
  unsigned char diff = given.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < secret.size(); ++i)
    diff |= static_cast<unsigned char>(secret[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

bool is_local_address(const std::string& address) {
  if (address.rfind("unix:", 0) == 0 || address.rfind("unix-abstract:", 0) == 0) return true;
  std::string host = host_of(address);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string bound_address(const std::string& listen, int port) {
  if (listen.rfind("unix", 0) == 0) return listen;
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || listen.substr(colon + 1) != "0") return listen;
  return listen.substr(0, colon + 1) + std::to_string(port);
}

std::shared_ptr<grpc::ServerCredentials> server_credentials(const TlsFiles& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  if (tls.key.empty()) KILN_USER_ERROR() << "a TLS certificate needs its private key (--tls-key)";
  grpc::SslServerCredentialsOptions o;
  o.pem_key_cert_pairs.push_back({read_pem(tls.key, "TLS key"), read_pem(tls.cert, "TLS certificate")});
  return grpc::SslServerCredentials(o);
}

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const std::string& ca_file) {
  if (ca_file.empty()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = read_pem(ca_file, "TLS CA certificate");
  return grpc::SslCredentials(o);
}

const char* status_code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    default: return "UNKNOWN";
  }
}

}  // namespace kiln::rpc
