#include "tuning_logs/open_database.h"

#include "tuning_logs/pg_connection.h"
#include "tuning_logs/postgres_database.h"
#include "tuning_logs/sqlite_database.h"

namespace kiln::tuning {

std::unique_ptr<Database> open_database(const std::string& where, OpenMode mode) {
  if (is_postgres_url(where)) return open_postgres_database(where, mode);
  return open_sqlite_database(where, mode);
}

std::string database_name(const std::string& where) { return redact_url(where); }

}  // namespace kiln::tuning
