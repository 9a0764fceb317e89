// The PostgreSQL tuning database's own concerns, on a real server
// (tests/support/postgres.h): it lives in its own schema and refuses one
// that is not ours or is newer, a URL's password is never shown, many
// processes may create it at once, and kiln db merge copies between it and
// a SQLite file both ways (database_contract_test.cpp holds what both
// backends do).
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "core/error.h"
#include "support/error_of.h"
#include "support/postgres.h"
#include "support/scratch.h"
#include "tuning_logs/fixtures.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/pg_connection.h"
#include "tuning_logs/postgres_schema.h"

namespace kiln::tuning {
namespace {

TuningRecord record(const std::string& key, const std::string& trace, double secs) {
  TuningRecord r;
  r.workload_key = key;
  r.target = "llvm -mcpu=znver4 -num-cores=2";
  r.device_key = "dev";
  r.cpu_model = "cpu \"quoted\"\nand a newline, ünïcode";
  r.trace_json = test_trace(trace);
  if (secs > 0) r.run_secs = {secs, secs * 1.5, 0.1 + 0.2};  // 0.30000000000000004 must come back exactly
  else r.error_kind = ErrorKind::kTimeout;
  r.build_ms = 3.25;
  r.kiln_version = "0.1.0";
  r.created_at = 1700000123;
  return r;
}

std::string exported(Database& db) {
  std::ostringstream os;
  export_jsonl(db, os);
  return os.str();
}

TEST(RedactUrl, HidesThePasswordAndNothingElse) {
  EXPECT_EQ(redact_url("postgresql://kiln:s3cr%40t@db.example:5432/farm"), "postgresql://kiln:***@db.example:5432/farm");
  EXPECT_EQ(redact_url("postgres://u:p@h/d?sslmode=require&password=p2"), "postgres://u:***@h/d?sslmode=require&password=***");
  EXPECT_EQ(redact_url("postgresql://kiln@127.0.0.1/kiln"), "postgresql://kiln@127.0.0.1/kiln");
  EXPECT_EQ(redact_url("postgresql://127.0.0.1:5432/kiln"), "postgresql://127.0.0.1:5432/kiln");
  EXPECT_EQ(redact_url("tuning.db"), "tuning.db");
  EXPECT_EQ(database_name("postgresql://a:b@c/d"), "postgresql://a:***@c/d");
}

TEST(PostgresDatabase, AWrongPasswordIsRefusedWithoutShowingIt) {
  const std::string url = testing::fresh_postgres_database("password");
  const std::string host = url.substr(url.find('@'));
  const std::string wrong = "postgresql://kiln:not-the-password-4711" + host;
  const std::string msg = testing::error_of([&] { open_database(wrong); });
  EXPECT_NE(msg.find("postgresql://kiln:***@"), std::string::npos) << msg;
  EXPECT_NE(msg.find("password authentication failed"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("not-the-password-4711"), std::string::npos) << msg;
  // A statement that fails names the database without its password too.
  const std::string right = url.substr(url.find(':', 13) + 1, url.find('@') - url.find(':', 13) - 1);
  const std::string bad = testing::error_of([&] { PgConnection(url).exec("SELECT * FROM no_such_table"); });
  EXPECT_NE(bad.find("no_such_table"), std::string::npos) << bad;
  EXPECT_EQ(bad.find(right), std::string::npos) << bad;
}

TEST(PostgresDatabase, AnEmptyDatabaseIsNotOpenedAsExistingAndStaysEmpty) {
  const std::string url = testing::fresh_postgres_database("empty");
  const std::string msg = testing::error_of([&] { open_database(url, OpenMode::kExisting); });
  EXPECT_NE(msg.find("holds no kiln tuning database"), std::string::npos) << msg;
  PgConnection c(url);
  EXPECT_EQ(c.exec("SELECT COUNT(*) FROM pg_namespace WHERE nspname = 'kiln'").integer(0, 0), 0);
  open_database(url, OpenMode::kCreate);
  EXPECT_EQ(open_database(url, OpenMode::kExisting)->num_records(), 0);
}

TEST(PostgresDatabase, ASchemaThatIsNotOursIsRefusedAndLeftAlone) {
  const std::string url = testing::fresh_postgres_database("foreign");
  PgConnection c(url);
  c.exec("CREATE SCHEMA kiln; CREATE TABLE kiln.photos(id INTEGER); INSERT INTO kiln.photos VALUES (7)");
  const std::string msg = testing::error_of([&] { open_database(url); });
  EXPECT_NE(msg.find("is not a kiln tuning database"), std::string::npos) << msg;
  EXPECT_EQ(c.exec("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'kiln'").integer(0, 0), 1) << "nothing was added";
  EXPECT_EQ(c.exec("SELECT id FROM kiln.photos").integer(0, 0), 7);
  // Other applications' tables outside the schema are no obstacle.
  const std::string shared = testing::fresh_postgres_database("shared");
  PgConnection(shared).exec("CREATE TABLE public.photos(id INTEGER)");
  EXPECT_EQ(open_database(shared)->num_records(), 0);
}

TEST(PostgresDatabase, ANewerSchemaIsRefused) {
  const std::string url = testing::fresh_postgres_database("newer");
  open_database(url)->add_workload(test_workload(1));
  PgConnection(url).exec("UPDATE kiln.meta SET value = '99' WHERE name = 'schema_version'");
  const std::string msg = testing::error_of([&] { open_database(url); });
  EXPECT_NE(msg.find("schema version 99, newer than this kiln's " + std::to_string(kPgSchemaVersion)), std::string::npos)
      << msg;
}

TEST(PostgresDatabase, ManyProcessesMayCreateItAtOnce) {
  const std::string url = testing::fresh_postgres_database("race");
  std::vector<std::thread> openers;
  std::vector<std::string> errors(6);
  for (size_t i = 0; i < errors.size(); ++i)
    openers.emplace_back([&, i] { errors[i] = testing::error_of([&] { open_database(url)->add_workload(test_workload(1)); }); });
  for (std::thread& t : openers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "(no error)");
  EXPECT_EQ(PgConnection(url).exec("SELECT value FROM kiln.meta WHERE name = 'schema_version'").text(0, 0),
            std::to_string(kPgSchemaVersion));
}

TEST(PostgresDatabase, MergeCopiesBetweenAFileAndAServerBothWays) {
  const std::string file = testing::scratch_path("source.db");
  auto sqlite = open_database(file);
  sqlite->add_workload(test_workload(1));
  sqlite->add_workload(test_workload(2));
  const std::string k1 = test_workload(1).key, k2 = test_workload(2).key;
  sqlite->add_records({record(k1, "a", 3e-3), record(k1, "b", 1e-3), record(k1, "c", 0), record(k2, "a", 2e-3)});
  sqlite->add_final_measurement(sqlite->top_k(k1, record(k1, "a", 1).target, 1)[0].id, {1.25e-3, 1.5e-3});

  auto server = open_database(testing::fresh_postgres_database("merge"));
  ImportCounts in = merge(*server, *sqlite, "source.db");
  EXPECT_EQ(in.added, 4);
  EXPECT_EQ(exported(*server), exported(*sqlite)) << "every field, every double, every byte of text";
  EXPECT_EQ(merge(*server, *sqlite, "source.db").added, 0) << "merging again adds nothing";

  auto back = open_database(testing::scratch_path("back.db"));
  EXPECT_EQ(merge(*back, *server, "server").added, 4);
  EXPECT_EQ(exported(*back), exported(*sqlite));
}

}  // namespace
}  // namespace kiln::tuning
