// The SQLite tuning database's own concerns: files that are not ours are
// refused and left alone, and a newer schema is refused
// (database_contract_test.cpp holds what both backends do).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "tuning_logs/sqlite_database.h"
#include "support/scratch.h"

namespace kiln::tuning {
namespace {

std::string fresh_path(const std::string& name) { return testing::scratch_path(name + ".db"); }

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

WorkloadEntry matmul() { return {"k-matmul", "{\"ir\": 1}", "matmul", "matmul:M=8,N=8,K=8,dtype=float32", 1024}; }

TEST(SqliteDatabase, FilesThatAreNotOursAreRefusedAndLeftAlone) {
  std::string garbage = fresh_path("garbage");
  std::ofstream(garbage) << "this is not a database, just text that is long enough to look like a file\n";
  std::string before = read_file(garbage);
  try {
    open_sqlite_database(garbage);
    FAIL() << "opened a text file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(garbage), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(garbage), before);

  std::string foreign = fresh_path("foreign");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  before = read_file(foreign);
  try {
    open_sqlite_database(foreign);
    FAIL() << "opened another program's database";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a kiln tuning database"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(foreign), before);

  EXPECT_THROW(open_sqlite_database(fresh_path("missing"), OpenMode::kExisting), Error);
}

TEST(SqliteDatabase, ANewerSchemaIsRefused) {
  std::string path = fresh_path("newer");
  { open_sqlite_database(path)->add_workload(matmul()); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  try {
    open_sqlite_database(path);
    FAIL() << "opened a newer schema";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99, newer than this kiln's " + std::to_string(kSchemaVersion)), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::tuning
