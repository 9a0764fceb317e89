#include "processes.h"

#include <chrono>
#include <thread>

namespace kiln::farm {

FarmProcess start_test_kilnd(const std::string& url, std::vector<std::string> extra, const std::string& listen) {
  std::vector<std::string> args = {"--lease", "3", "--heartbeat", "0.3", "--runner-timeout", "1.5", "--build-workers", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return start_kilnd(url, args, listen);
}

bool eventually(const std::function<bool()>& pred, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto holds = [&] {
    try {
      return pred();
    } catch (const std::exception&) {  // a daemon restarting: ask again
      return false;
    }
  };
  while (std::chrono::steady_clock::now() < deadline) {
    if (holds()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return holds();
}

}  // namespace kiln::farm
