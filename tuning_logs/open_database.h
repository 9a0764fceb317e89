// Opening a tuning database by what a user typed after --db: a
// postgresql:// (or postgres://) URL opens the server's database
// (postgres_database.h), anything else is a SQLite file
// (sqlite_database.h). Every command that takes --db goes through here, so
// each works on both.
#pragma once

#include <memory>
#include <string>

#include "tuning_logs/database.h"

namespace kiln::tuning {

std::unique_ptr<Database> open_database(const std::string& where, OpenMode mode = OpenMode::kCreate);

// How to name `where` to people: a URL without its password, a path as it is.
std::string database_name(const std::string& where);

}  // namespace kiln::tuning
