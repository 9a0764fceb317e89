// A farm's processes started by this process, on this machine: kilnd
// daemons and `kiln runner --register` runners as children (they die with
// it), each ready once it says where it listens. What the farm's tests and
// bench/ build their farms from; scripts/local-farm does the same from a
// shell.
#pragma once

#include <string>
#include <vector>

#include "rpc/process/child_process.h"

namespace kiln::farm {

struct FarmProcess {
  rpc::ChildProcess child;
  std::string address;  // where it listens
};

// The kilnd executable: $KILND_BINARY if set, else "kilnd" beside kiln's.
std::string kilnd_binary();

// kilnd --db url --listen listen, then `extra`. Throws kiln::Error with
// what it printed when it does not start.
FarmProcess start_kilnd(const std::string& url, const std::vector<std::string>& extra = {},
                        const std::string& listen = "127.0.0.1:0");

// kiln runner --key key --register daemon (listening on 127.0.0.1:0 unless
// `extra` says --listen), then `extra`.
FarmProcess start_runner(const std::string& daemon, const std::string& key, const std::vector<std::string>& extra = {});

}  // namespace kiln::farm
