#include "processes.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>

namespace kiln::farm {
namespace {

FarmProcess start(std::vector<std::string> argv, const std::string& ready) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  FarmProcess p;
  p.child = rpc::ChildProcess::spawn(argv, {}, out[1]);
  close(out[1]);
  std::string seen;
  std::optional<std::string> addr = rpc::read_line_after(out[0], ready, 60000, seen);
  close(out[0]);
  if (!addr) throw std::runtime_error(argv[0] + " did not start: " + seen + " " + p.child.exit_description());
  p.address = *addr;
  return p;
}

}  // namespace

FarmProcess start_kilnd(const std::string& url, std::vector<std::string> extra, const std::string& listen) {
  std::vector<std::string> argv = {KILND_BINARY, "--db", url, "--listen", listen,
                                   "--lease", "3", "--heartbeat", "0.3", "--runner-timeout", "1.5", "--build-workers", "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return start(argv, "kilnd: listening on ");
}

FarmProcess start_runner(const std::string& daemon, const std::string& key, std::vector<std::string> extra) {
  std::vector<std::string> argv = {KILN_BINARY, "runner", "--key", key, "--register", daemon};
  if (std::find(extra.begin(), extra.end(), "--listen") == extra.end()) argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return start(argv, "kiln runner: listening on ");
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
