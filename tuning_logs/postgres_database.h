// The tuning database on a PostgreSQL server: what a device farm's daemons
// and users share (docs/farm.md). The same schema, queries and behaviour as
// the SQLite file (sqlite_database.h), behind the same Database interface:
// each batch is one transaction, so a writer killed mid-batch leaves every
// committed batch and nothing of the rest, and any number of processes on
// any number of machines may write at once.
#pragma once

#include <memory>
#include <string>

#include "tuning_logs/database.h"

namespace kiln::tuning {

// Opens the database a postgresql:// URL names, creating kiln's schema in
// it (kCreate) or requiring it (kExisting). The server's database itself
// must exist (createdb). Throws kiln::Error naming the URL without its
// password.
std::unique_ptr<Database> open_postgres_database(const std::string& url, OpenMode mode = OpenMode::kCreate);

}  // namespace kiln::tuning
