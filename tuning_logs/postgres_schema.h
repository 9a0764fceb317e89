// The PostgreSQL schema as a list of migrations, the way sqlite_schema.h
// builds a file: a new database runs every step from version 0, an older
// one the steps after its version, all in one transaction that leaves it as
// it was if a step fails.
//
// Everything kiln keeps on a server lives in the schema (namespace) "kiln",
// so a database may hold other applications' tables beside it. Its meta
// table says what it is: application 'kiln', the schema version, and the
// workload key scheme (tir/analysis/workload_key.h). Several processes may
// open a new database at once: an advisory lock lets one of them migrate.
#pragma once

#include <vector>

#include "tuning_logs/pg_connection.h"

namespace kiln::tuning {

// The PostgreSQL schema this kiln writes (its own numbering, not SQLite's).
constexpr int kPgSchemaVersion = 1;

// Makes c's database a kiln tuning database of kPgSchemaVersion: creates
// the schema where there is none (when `create`; otherwise throws), and
// migrates an older one. Throws kiln::Error naming the database when it
// holds a "kiln" schema that is not ours, a newer schema version, or
// workload keys of another scheme; nothing is changed then. Leaves the
// connection's search_path at "kiln".
void prepare_pg_schema(PgConnection& c, bool create);

// Another part of kiln's schema with its own versions (the farm's job
// queue, farm/farm_schema.h): brings it to steps.size() the same way, its
// version kept in the meta row `version_name`. Call after
// prepare_pg_schema. Throws kiln::Error naming the database when it holds
// a newer version.
void migrate_pg_part(PgConnection& c, const std::string& version_name, const std::vector<const char*>& steps);

}  // namespace kiln::tuning
