// A farm on one machine for the tests (farm/local_farm.h), with leases and
// heartbeats short enough for a test to see a daemon or runner die.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "farm/local_farm.h"

namespace kiln::farm {

// kilnd with --lease 3, --heartbeat 0.3, --runner-timeout 1.5 and one build
// worker, then `extra`.
FarmProcess start_test_kilnd(const std::string& url, std::vector<std::string> extra = {},
                             const std::string& listen = "127.0.0.1:0");

// Polls until pred() holds, at most timeout_s; returns whether it did. A
// pred that throws (a daemon restarting) does not hold yet.
bool eventually(const std::function<bool()>& pred, double timeout_s);

}  // namespace kiln::farm
