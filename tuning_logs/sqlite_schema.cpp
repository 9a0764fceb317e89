#include "tuning_logs/sqlite_schema.h"

#include <array>
#include <vector>

#include "core/error.h"

namespace kiln::tuning {
namespace {

// Step i brings a file from version i to i + 1. Never edit a step that has
// shipped: add one.
constexpr std::array<const char*, kSchemaVersion> kSteps = {
    // 0 -> 1: workloads and records.
    R"sql(
CREATE TABLE workloads(
  key TEXT PRIMARY KEY,
  ir_json TEXT NOT NULL,
  op TEXT NOT NULL,
  shape TEXT NOT NULL,
  flops REAL NOT NULL);
CREATE TABLE records(
  id INTEGER PRIMARY KEY,
  workload_key TEXT NOT NULL REFERENCES workloads(key),
  target TEXT NOT NULL,
  device_key TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  trace_json TEXT NOT NULL,
  trace_hash TEXT NOT NULL,
  run_secs TEXT NOT NULL,
  mean_secs REAL,
  median_secs REAL,
  build_ms REAL NOT NULL,
  error_kind TEXT NOT NULL,
  error_message TEXT NOT NULL,
  feature_version INTEGER NOT NULL,
  kiln_version TEXT NOT NULL,
  created_at INTEGER NOT NULL);
CREATE INDEX records_best ON records(workload_key, target, median_secs) WHERE error_kind = 'none';
CREATE INDEX records_by_trace ON records(workload_key, target, trace_hash);
)sql",
    // 1 -> 2: a meta table; version 1 files were keyed with workload keys v1.
    R"sql(
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta(name, value) VALUES('workload_key_version', '1');
)sql",
    // 2 -> 3: the final measurement of a job's best records, and the time
    // records are ranked by (its median where there is one, else the median).
    R"sql(
ALTER TABLE records ADD COLUMN final_secs TEXT;
ALTER TABLE records ADD COLUMN rank_secs REAL;
UPDATE records SET rank_secs = median_secs;
DROP INDEX records_best;
CREATE INDEX records_best ON records(workload_key, target, rank_secs) WHERE error_kind = 'none';
)sql",
};

}  // namespace

void migrate_schema(SqliteConnection& c, int from) {
  for (int v = from; v < kSchemaVersion; ++v) {
    try {
      c.exec(kSteps[v]);
    } catch (const Error& e) {
      KILN_USER_ERROR() << c.path() << ": migrating the schema from version " << v << " to " << v + 1
                        << " failed, the file is unchanged: " << e.what();
    }
  }
  c.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
}

int stored_workload_key_version(SqliteConnection& c) {
  SqliteStatement q(c, "SELECT value FROM meta WHERE name = 'workload_key_version'");
  if (!q.step()) KILN_USER_ERROR() << c.path() << ": the meta table does not say which workload keys it uses";
  return std::stoi(q.text(0));
}

void migrate_workload_keys(SqliteConnection& c, int to_version,
                           const std::function<Rekeyed(const std::string&)>& rekey) {
  struct Change {
    std::string old_key;
    Rekeyed now;
  };
  std::vector<Change> changes;
  {
    SqliteStatement q(c, "SELECT key, ir_json, shape FROM workloads ORDER BY key");
    while (q.step()) {
      Change ch{q.text(0), {}};
      const std::string ir = q.text(1);
      try {
        ch.now = rekey(ir);
      } catch (const Error& e) {
        KILN_USER_ERROR() << c.path() << ": cannot migrate workload " << ch.old_key << " (" << q.text(2)
                          << ") to workload keys v" << to_version << ", the file is unchanged: its IR does not read: "
                          << e.what();
      }
      if (ch.now.key != ch.old_key || ch.now.ir_json != ir) changes.push_back(std::move(ch));
    }
  }
  // The new row first (records refer to it), then the records, then the old row.
  SqliteStatement copy(c,
                       "INSERT OR IGNORE INTO workloads(key, ir_json, op, shape, flops) "
                       "SELECT ?, ?, op, shape, flops FROM workloads WHERE key = ?");
  SqliteStatement rewrite(c, "UPDATE workloads SET ir_json = ? WHERE key = ?");
  SqliteStatement move(c, "UPDATE records SET workload_key = ? WHERE workload_key = ?");
  SqliteStatement drop(c, "DELETE FROM workloads WHERE key = ?");
  for (const Change& ch : changes) {
    if (ch.now.key == ch.old_key) {
      rewrite.bind(1, ch.now.ir_json).bind(2, ch.old_key).step();
      rewrite.reset();
      continue;
    }
    copy.bind(1, ch.now.key).bind(2, ch.now.ir_json).bind(3, ch.old_key).step();
    copy.reset();
    move.bind(1, ch.now.key).bind(2, ch.old_key).step();
    move.reset();
    drop.bind(1, ch.old_key).step();
    drop.reset();
  }
  SqliteStatement set(c, "UPDATE meta SET value = ? WHERE name = 'workload_key_version'");
  set.bind(1, std::to_string(to_version)).step();
}

}  // namespace kiln::tuning
