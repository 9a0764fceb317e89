// The embedded tuning database: one SQLite file (docs/tuning_database.md).
//
// The file says what it is: PRAGMA application_id is 'KILN', and
// PRAGMA user_version is the schema version, which an older file is
// migrated from and a newer one is refused at (sqlite_schema.h); workload
// keys made by an older scheme are recomputed from the stored IR. It runs in WAL mode with a
// busy timeout, and each batch is one transaction, so several tuner
// processes can write one file at once and a writer killed mid-batch leaves
// every committed batch and nothing of the rest.
#pragma once

#include <memory>
#include <string>

#include "tuning_logs/database.h"
#include "tuning_logs/sqlite_schema.h"

namespace kiln::tuning {

// Opens (or creates) the database at `path`. Throws kiln::Error naming the
// file when it is not a kiln tuning database, is corrupt, or has a schema
// newer than kSchemaVersion; the file is left as it was.
std::unique_ptr<Database> open_sqlite_database(const std::string& path, OpenMode mode = OpenMode::kCreate);

}  // namespace kiln::tuning
