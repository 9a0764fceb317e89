#include "support/postgres.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tuning_logs/pg_connection.h"

namespace kiln::testing {
namespace {

std::string run_script(const std::string& verb, const std::string& state) {
  const std::string cmd = std::string(KILN_SOURCE_DIR) + "/scripts/local-postgres " + verb + " '" + state + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0) throw std::runtime_error(cmd + " failed");
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A server this process started, stopped when it exits.
class OwnServer {
 public:
  OwnServer() : owner_(getpid()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-test-pg-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    state_ = tmpl;
    url_ = run_script("start", state_);
  }
  ~OwnServer() {
    if (getpid() != owner_) return;  // a forked child exits through here too
    try {
      run_script("stop", state_);
    } catch (const std::exception&) {
    }
    std::error_code ec;
    std::filesystem::remove_all(state_, ec);
  }
  const std::string& url() const { return url_; }

 private:
  pid_t owner_;
  std::string state_, url_;
};

}  // namespace

std::string test_postgres_server() {
  if (const char* state = std::getenv("KILN_TEST_POSTGRES")) {
    static const std::string url = [&] {
      std::ifstream in(std::string(state) + "/url");
      std::string u;
      if (!std::getline(in, u)) throw std::runtime_error(std::string("no server URL in ") + state + "/url");
      return u;
    }();
    return url;
  }
  static OwnServer server;
  return server.url();
}

std::string fresh_postgres_database(const std::string& name) {
  static int counter = 0;
  std::string db = "t" + std::to_string(getpid()) + "_" + std::to_string(++counter) + "_";
  for (char c : name) db += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  db = db.substr(0, 63);
  const std::string server = test_postgres_server();
  tuning::PgConnection(server).exec("CREATE DATABASE " + db);
  return server.substr(0, server.rfind('/') + 1) + db;
}

}  // namespace kiln::testing
