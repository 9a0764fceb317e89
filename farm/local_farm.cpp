#include "farm/local_farm.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"

namespace kiln::farm {
namespace {

constexpr int kStartupMs = 60000;

FarmProcess start(const std::vector<std::string>& argv, const std::string& ready) {
  FarmProcess p;
  std::string seen;
  std::optional<std::string> addr = rpc::spawn_until_line(p.child, argv, ready, kStartupMs, seen);
  if (!addr) {
    p.child.wait_or_kill(1000);
    KILN_USER_ERROR() << argv[0] << " did not start (" << (p.child.running() ? "no ready line" : p.child.exit_description())
                      << ")" << (seen.empty() ? "" : "; it printed: " + seen);
  }
  p.address = *addr;
  return p;
}

}  // namespace

std::string kilnd_binary() {
  if (const char* env = std::getenv("KILND_BINARY"); env && *env) return env;
  return (std::filesystem::path(rpc::kiln_binary()).parent_path() / "kilnd").string();
}

FarmProcess start_kilnd(const std::string& url, const std::vector<std::string>& extra, const std::string& listen) {
  std::vector<std::string> argv = {kilnd_binary(), "--db", url, "--listen", listen};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return start(argv, "kilnd: listening on ");
}

FarmProcess start_runner(const std::string& daemon, const std::string& key, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {rpc::kiln_binary(), "runner", "--key", key, "--register", daemon};
  if (std::find(extra.begin(), extra.end(), "--listen") == extra.end()) argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return start(argv, "kiln runner: listening on ");
}

}  // namespace kiln::farm
