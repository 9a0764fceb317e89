#include "support/postgres.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "farm/local_farm.h"

namespace kiln::testing {

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
  static farm::LocalPostgres server(std::string(KILN_SOURCE_DIR) + "/scripts/local-postgres");
  return server.url();
}

std::string fresh_postgres_database(const std::string& name) {
  static int counter = 0;
  std::string db = "t" + std::to_string(getpid()) + "_" + std::to_string(++counter) + "_";
  for (char c : name) db += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  db = db.substr(0, 63);
  return farm::create_postgres_database(test_postgres_server(), db);
}

}  // namespace kiln::testing
