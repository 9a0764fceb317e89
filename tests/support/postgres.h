// The PostgreSQL server tests run against (scripts/local-postgres): ctest
// starts one for the whole suite (a fixture, tests/CMakeLists.txt) and names
// its state directory in KILN_TEST_POSTGRES; a test binary run by hand
// starts its own, stopped and removed when the process exits.
#pragma once

#include <string>

namespace kiln::testing {

// The URL of the server's database "kiln" (it holds a password).
std::string test_postgres_server();

// A new, empty database on that server, for one test, named after `name`
// and this process: its URL.
std::string fresh_postgres_database(const std::string& name);

}  // namespace kiln::testing
