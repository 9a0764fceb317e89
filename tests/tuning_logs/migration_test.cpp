// Migrations: a file written by an older kiln opens in this one with every
// record kept, and a migration that cannot finish leaves the file as it was.
#include <gtest/gtest.h>



#include "core/error.h"
#include "tuning_logs/fixtures.h"
#include "tuning_logs/sqlite_database.h"
#include "tuning_logs/sqlite_statement.h"
#include "support/scratch.h"

namespace kiln::tuning {
namespace {

const std::string kTarget = "llvm -mcpu=znver4 -num-cores=2";

std::string fresh_path(const std::string& name) { return testing::scratch_path(name + ".db"); }

// Runs SQL on the file directly, as another program (or an older kiln) would.
void raw_sql(const std::string& path, const std::string& sql) {
  SqliteConnection c(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  c.exec(sql);
}
std::string raw_text(const std::string& path, const std::string& sql) {
  SqliteConnection c(path, SQLITE_OPEN_READWRITE);
  SqliteStatement q(c, sql);
  return q.step() ? q.text(0) : "(no row)";
}

TuningRecord record(const std::string& key, const std::string& tag, double secs) {
  TuningRecord r;
  r.workload_key = key;
  r.target = kTarget;
  r.trace_json = test_trace(tag);
  r.run_secs = {secs};
  return r;
}

// Schema 1 exactly as kiln 0.1 created it.
constexpr const char* kSchemaV1File = R"sql(
CREATE TABLE workloads(key TEXT PRIMARY KEY, ir_json TEXT NOT NULL, op TEXT NOT NULL, shape TEXT NOT NULL,
  flops REAL NOT NULL);
CREATE TABLE records(id INTEGER PRIMARY KEY, workload_key TEXT NOT NULL REFERENCES workloads(key),
  target TEXT NOT NULL, device_key TEXT NOT NULL, cpu_model TEXT NOT NULL, trace_json TEXT NOT NULL,
  trace_hash TEXT NOT NULL, run_secs TEXT NOT NULL, mean_secs REAL, median_secs REAL, build_ms REAL NOT NULL,
  error_kind TEXT NOT NULL, error_message TEXT NOT NULL, feature_version INTEGER NOT NULL,
  kiln_version TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX records_best ON records(workload_key, target, median_secs) WHERE error_kind = 'none';
CREATE INDEX records_by_trace ON records(workload_key, target, trace_hash);
PRAGMA application_id = 1263094862;
PRAGMA user_version = 1;
)sql";

TEST(Migration, ASchemaVersion1FileIsUpgradedWithItsRecords) {
  const std::string path = fresh_path("v1");
  const WorkloadEntry w = test_workload(4);
  raw_sql(path, kSchemaV1File);
  raw_sql(path, "INSERT INTO workloads VALUES('" + w.key + "', '" + w.ir_json + "', 'matmul', '" + w.shape +
                    "', 1024); INSERT INTO records(workload_key, target, device_key, cpu_model, trace_json, "
                    "trace_hash, run_secs, mean_secs, median_secs, build_ms, error_kind, error_message, "
                    "feature_version, kiln_version, created_at) VALUES('" +
                    w.key + "', '" + kTarget + "', 'dev', 'cpu', '[]', '0', '[0.002]', 0.002, 0.002, 5, 'none', '', 0, "
                    "'0.1.0', 1700000000);");
  auto db = open_sqlite_database(path, OpenMode::kExisting);
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(kSchemaVersion));
  EXPECT_EQ(raw_text(path, "SELECT value FROM meta WHERE name = 'workload_key_version'"), "1");
  std::vector<TuningRecord> best = db->top_k(w.key, kTarget, 5);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_DOUBLE_EQ(best[0].median_secs(), 0.002);
  EXPECT_EQ(best[0].kiln_version, "0.1.0");
}

// A database whose workloads were keyed by an older scheme ("v0-..."):
// what an older kiln would have left.
std::string file_with_old_keys(const std::string& name, const std::string& second_ir) {
  const std::string path = fresh_path(name);
  const WorkloadEntry w = test_workload(4);
  {
    auto db = open_sqlite_database(path);
    db->add_workload(w);
    db->add_records({record(w.key, "a", 3e-3), record(w.key, "b", 1e-3)});
  }
  raw_sql(path, "PRAGMA foreign_keys = OFF; UPDATE workloads SET key = 'v0-first'; "
                "UPDATE records SET workload_key = 'v0-first';"
                "INSERT INTO workloads VALUES('v0-second', '" + second_ir + "', 'matmul', 'second', 1024);"
                "INSERT INTO records(workload_key, target, device_key, cpu_model, trace_json, trace_hash, run_secs, "
                "mean_secs, median_secs, rank_secs, build_ms, error_kind, error_message, feature_version, "
                "kiln_version, created_at) VALUES('v0-second', '" + kTarget + "', '', '', '" + test_trace("c") +
                "', 'h', '[0.0005]', 0.0005, 0.0005, 0.0005, 1, 'none', '', 0, '0.0.9', 0);"
                "UPDATE meta SET value = '0' WHERE name = 'workload_key_version';");
  return path;
}

TEST(Migration, OldWorkloadKeysAreRecomputedFromTheStoredIr) {
  // Both old keys hold the same computation: they become one workload.
  const WorkloadEntry w = test_workload(4);
  const std::string path = file_with_old_keys("rekey", w.ir_json);
  auto db = open_sqlite_database(path, OpenMode::kExisting);
  std::vector<WorkloadEntry> ws = db->workloads();
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].key, w.key);
  std::vector<TuningRecord> best = db->top_k(w.key, kTarget, 5);
  ASSERT_EQ(best.size(), 3u) << "every record followed its workload";
  EXPECT_EQ(best[0].trace_json, test_trace("c"));
  EXPECT_EQ(raw_text(path, "SELECT value FROM meta WHERE name = 'workload_key_version'"), "1");
  EXPECT_EQ(raw_text(path, "PRAGMA integrity_check"), "ok");
}

TEST(Migration, AnIrThatDoesNotReadStopsTheMigrationAndChangesNothing) {
  const std::string file = file_with_old_keys("stuck", "{\"kiln_ir\": 1}");
  try {
    open_sqlite_database(file, OpenMode::kExisting);
    FAIL() << "migrated a workload whose IR does not read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot migrate workload v0-second (second) to workload keys v1, the file "
                                         "is unchanged: its IR does not read: unsupported kiln_ir version 1"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(raw_text(file, "SELECT value FROM meta WHERE name = 'workload_key_version'"), "0");
  EXPECT_EQ(raw_text(file, "SELECT COUNT(*) FROM records WHERE workload_key = 'v0-first'"), "2");
  EXPECT_EQ(raw_text(file, "SELECT COUNT(*) FROM workloads"), "2");
}

TEST(Migration, NewerWorkloadKeysAreRefused) {
  const std::string path = fresh_path("newer-keys");
  { open_sqlite_database(path)->add_workload(test_workload(4)); }
  raw_sql(path, "UPDATE meta SET value = '7' WHERE name = 'workload_key_version'");
  try {
    open_sqlite_database(path, OpenMode::kExisting);
    FAIL() << "opened a file with newer workload keys";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("uses workload keys v7, newer than this kiln's v1: use a newer kiln"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::tuning
