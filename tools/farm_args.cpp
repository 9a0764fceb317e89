#include "tools/farm_args.h"

#include <cstdlib>

namespace kiln::cli {

void DaemonArgs::add_to(CLI::App* cmd) {
  cmd->add_option("--daemon", daemon, "the kilnd to ask (default: $KILN_DAEMON, else 127.0.0.1:9200)");
  cmd->add_option("--token", token, "your token (default: $KILN_TOKEN)");
  cmd->add_option("--tls-ca", tls_ca, "PEM file of the CA that signed the daemon's certificate (TLS)");
}

farm::FarmClient DaemonArgs::client() const {
  std::string addr = daemon, tok = token;
  if (addr.empty()) addr = std::getenv("KILN_DAEMON") ? std::getenv("KILN_DAEMON") : "127.0.0.1:9200";
  if (tok.empty() && std::getenv("KILN_TOKEN")) tok = std::getenv("KILN_TOKEN");
  return farm::FarmClient(addr, {.token = tok, .tls_ca = tls_ca});
}

}  // namespace kiln::cli
