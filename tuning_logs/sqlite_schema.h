// The SQLite schema as a list of migrations, and the migration of workload
// keys.
//
// A database file is built by the same steps that upgrade an old one: a new
// file runs every step from version 0, a file of version v runs the steps
// after v. PRAGMA user_version records where a file stands. All steps run in
// one write transaction, so a step that fails leaves the file as it was.
//
// Workload keys have their own version (tir/analysis/workload_key.h), kept in
// the meta table. When this kiln hashes workloads differently from the kiln
// that wrote a file, the keys are recomputed from the canonical IR JSON the
// file holds beside them, and every record follows its workload: a new
// hashing scheme is a migration, not a silent loss of every record.
#pragma once

#include <functional>
#include <string>

#include "tuning_logs/sqlite_statement.h"

namespace kiln::tuning {

// The schema this kiln writes.
constexpr int kSchemaVersion = 3;

// Brings a file of schema version `from` (0: empty) to kSchemaVersion.
// Call inside a write transaction.
void migrate_schema(SqliteConnection& c, int from);

// The workload key scheme the file's keys were made with (meta table).
int stored_workload_key_version(SqliteConnection& c);

// A workload's key and canonical IR JSON as this kiln makes them.
struct Rekeyed {
  std::string key;
  std::string ir_json;
};

// Rekeys every workload from its stored IR JSON with `rekey` (in production:
// load the PrimFunc, then workload_key and the canonical JSON of it) and
// records `to_version`; records move with their workload, and two old keys
// that now name one computation become one workload. Throws kiln::Error
// naming a workload whose IR cannot be read. Call inside a write transaction.
void migrate_workload_keys(SqliteConnection& c, int to_version,
                           const std::function<Rekeyed(const std::string& ir_json)>& rekey);

}  // namespace kiln::tuning
