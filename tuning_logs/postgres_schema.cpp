#include "tuning_logs/postgres_schema.h"

#include <array>
#include <string>

#include "core/error.h"
#include "tir/analysis/workload_key.h"

namespace kiln::tuning {
namespace {

// Any number both sides agree on: the key of the advisory lock that
// serialises migrations ("KILN").
constexpr int64_t kMigrationLock = 0x4B494C4E;

// Step i brings a database from version i to i + 1. Never edit a step that
// has shipped: add one. The tables are SQLite's (sqlite_schema.cpp) at its
// version 3, in PostgreSQL's types.
constexpr std::array<const char*, kPgSchemaVersion> kSteps = {
    // 0 -> 1: meta, workloads and records.
    R"sql(
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE workloads(
  key TEXT PRIMARY KEY,
  ir_json TEXT NOT NULL,
  op TEXT NOT NULL,
  shape TEXT NOT NULL,
  flops DOUBLE PRECISION NOT NULL);
CREATE TABLE records(
  id BIGSERIAL PRIMARY KEY,
  workload_key TEXT NOT NULL REFERENCES workloads(key),
  target TEXT NOT NULL,
  device_key TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  trace_json TEXT NOT NULL,
  trace_hash TEXT NOT NULL,
  run_secs TEXT NOT NULL,
  mean_secs DOUBLE PRECISION,
  median_secs DOUBLE PRECISION,
  build_ms DOUBLE PRECISION NOT NULL,
  error_kind TEXT NOT NULL,
  error_message TEXT NOT NULL,
  feature_version INTEGER NOT NULL,
  kiln_version TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  final_secs TEXT,
  rank_secs DOUBLE PRECISION);
CREATE INDEX records_best ON records(workload_key, target, rank_secs) WHERE error_kind = 'none';
CREATE INDEX records_by_trace ON records(workload_key, target, trace_hash);
)sql",
};

struct State {
  bool has_schema = false;  // a namespace "kiln"
  bool has_meta = false;
  std::string application;
  int version = 0;
  int key_version = 0;
};

// Both facts from the catalog tables, in the one snapshot of the
// statement: `to_regclass` looks the table up through the catalog caches
// instead, whose snapshot may predate the statement's, so that a creator
// committing in between showed the schema without its meta table, and a
// process opening the database alongside its creator refused it as not
// ours (PostgresDatabase.ManyProcessesMayCreateItAtOnce, now and then
// under AddressSanitizer).
State read_state(PgConnection& c) {
  State s;
  PgResult q = c.exec(
      "SELECT EXISTS(SELECT 1 FROM pg_namespace WHERE nspname = 'kiln'), "
      "EXISTS(SELECT 1 FROM pg_class r JOIN pg_namespace n ON r.relnamespace = n.oid "
      "WHERE n.nspname = 'kiln' AND r.relname = 'meta')");
  s.has_schema = q.text(0, 0) == "t";
  s.has_meta = q.text(0, 1) == "t";
  if (!s.has_meta) return s;
  PgResult m = c.exec("SELECT name, value FROM kiln.meta");
  for (int i = 0; i < m.rows(); ++i) {
    const std::string name = m.text(i, 0), value = m.text(i, 1);
    if (name == "application") s.application = value;
    if (name == "schema_version") s.version = std::stoi(value);
    if (name == "workload_key_version") s.key_version = std::stoi(value);
  }
  return s;
}

void check(const PgConnection& c, const State& s) {
  if (s.has_schema && (!s.has_meta || s.application != "kiln"))
    KILN_USER_ERROR() << c.name() << ": its schema \"kiln\" is not a kiln tuning database";
  if (s.version > kPgSchemaVersion)
    KILN_USER_ERROR() << c.name() << " has schema version " << s.version << ", newer than this kiln's "
                      << kPgSchemaVersion << ": use a newer kiln";
  if (s.has_meta && s.key_version != kWorkloadKeyVersion)
    KILN_USER_ERROR() << c.name() << " uses workload keys v" << s.key_version << ", this kiln v"
                      << kWorkloadKeyVersion << ": copy it into a file with a kiln of its version (kiln db merge), "
                      << "which this kiln migrates";
}

void set_meta(PgConnection& c, const std::string& name, const std::string& value) {
  c.exec("INSERT INTO kiln.meta(name, value) VALUES($1, $2) ON CONFLICT(name) DO UPDATE SET value = $2", {name, value});
}

int meta_version(PgConnection& c, const std::string& name) {
  PgResult q = c.exec("SELECT value FROM kiln.meta WHERE name = $1", {name});
  return q.rows() ? std::stoi(q.text(0, 0)) : 0;
}

}  // namespace

void migrate_pg_part(PgConnection& c, const std::string& version_name, const std::vector<const char*>& steps) {
  const int target = static_cast<int>(steps.size());
  auto check_version = [&](int v) {
    if (v > target)
      KILN_USER_ERROR() << c.name() << " has " << version_name << " " << v << ", newer than this kiln's " << target
                        << ": use a newer kiln";
  };
  int v = meta_version(c, version_name);
  check_version(v);
  if (v == target) return;
  c.transaction([&] {
    c.exec("SELECT pg_advisory_xact_lock(" + pg_text(kMigrationLock) + ")");
    v = meta_version(c, version_name);  // another process may have done it meanwhile
    check_version(v);
    for (int i = v; i < target; ++i) {
      try {
        c.exec(steps[static_cast<size_t>(i)]);
      } catch (const Error& e) {
        KILN_USER_ERROR() << c.name() << ": migrating " << version_name << " from " << i << " to " << i + 1
                          << " failed, the database is unchanged: " << e.what();
      }
    }
    set_meta(c, version_name, std::to_string(target));
  });
}

void prepare_pg_schema(PgConnection& c, bool create) {
  State s = read_state(c);
  check(c, s);
  if (s.has_meta && s.version == kPgSchemaVersion) {
    c.exec("SET search_path TO kiln");
    return;
  }
  if (!s.has_schema && !create)
    KILN_USER_ERROR() << c.name() << " holds no kiln tuning database (a tuning job or kiln db merge creates one)";
  c.transaction([&] {
    c.exec("SELECT pg_advisory_xact_lock(" + pg_text(kMigrationLock) + ")");
    s = read_state(c);  // another process may have done it meanwhile
    check(c, s);
    c.exec("CREATE SCHEMA IF NOT EXISTS kiln");
    c.exec("SET LOCAL search_path TO kiln");
    for (int v = s.version; v < kPgSchemaVersion; ++v) {
      try {
        c.exec(kSteps[v]);
      } catch (const Error& e) {
        KILN_USER_ERROR() << c.name() << ": migrating the schema from version " << v << " to " << v + 1
                          << " failed, the database is unchanged: " << e.what();
      }
    }
    set_meta(c, "application", "kiln");
    set_meta(c, "schema_version", std::to_string(kPgSchemaVersion));
    if (s.version == 0) set_meta(c, "workload_key_version", std::to_string(kWorkloadKeyVersion));
  });
  c.exec("SET search_path TO kiln");
}

}  // namespace kiln::tuning
