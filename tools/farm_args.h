// How `kiln job`, `kiln farm` and `kiln runner --register` reach a kilnd:
// --daemon ADDR (or $KILN_DAEMON; default 127.0.0.1:9200), --token (or
// $KILN_TOKEN), --tls-ca FILE to trust a daemon's certificate by.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "farm/farm_client.h"

namespace kiln::cli {

struct DaemonArgs {
  std::string daemon;
  std::string token;
  std::string tls_ca;

  void add_to(CLI::App* cmd);
  farm::FarmClient client() const;
};

}  // namespace kiln::cli
