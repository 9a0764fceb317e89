#include "farm/local_farm.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/temp_dir.h"
#include "tuning_logs/pg_connection.h"

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

// Runs `script verb state` and returns what it printed, trailing newlines
// dropped.
std::string run_script(const std::string& script, const std::string& verb, const std::string& state) {
  const std::string cmd = "'" + script + "' " + verb + " '" + state + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) KILN_USER_ERROR() << "cannot run " << cmd;
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0) KILN_USER_ERROR() << cmd << " failed";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

LocalPostgres::LocalPostgres(const std::string& script) : script_(script), owner_(getpid()) {
  state_ = make_temp_dir("kiln-postgres-state");
  url_ = run_script(script_, "start", state_);
}

LocalPostgres::~LocalPostgres() {
  if (getpid() != owner_) return;
  try {
    run_script(script_, "stop", state_);
  } catch (const Error&) {
  }
  std::error_code ec;
  std::filesystem::remove_all(state_, ec);
}

std::string create_postgres_database(const std::string& server_url, const std::string& name) {
  tuning::PgConnection(server_url).exec("CREATE DATABASE " + name);
  return server_url.substr(0, server_url.rfind('/') + 1) + name;
}

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
  std::unique_ptr<TempDir> workdir;
  if (std::find(extra.begin(), extra.end(), "--workdir") == extra.end()) {
    workdir = std::make_unique<TempDir>("kiln-runner");
    argv.insert(argv.end(), {"--workdir", workdir->path()});
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  FarmProcess p = start(argv, "kiln runner: listening on ");
  p.workdir = std::move(workdir);
  return p;
}

}  // namespace kiln::farm
