// The processes of a farm, started for real by the tests: kilnd daemons and
// `kiln runner --register` runners, each a child of the test process (they
// die with it), ready once it says where it listens.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rpc/process/child_process.h"

namespace kiln::farm {

struct FarmProcess {
  rpc::ChildProcess child;
  std::string address;  // where it listens
};

// kilnd --db url --listen listen, with short leases and heartbeats for
// tests, then `extra`.
FarmProcess start_kilnd(const std::string& url, std::vector<std::string> extra = {},
                        const std::string& listen = "127.0.0.1:0");

// kiln runner --listen 127.0.0.1:0 --key key --register daemon, then `extra`.
FarmProcess start_runner(const std::string& daemon, const std::string& key, std::vector<std::string> extra = {});

// Polls until pred() holds, at most timeout_s; returns whether it did. A
// pred that throws (a daemon restarting) does not hold yet.
bool eventually(const std::function<bool()>& pred, double timeout_s);

}  // namespace kiln::farm
