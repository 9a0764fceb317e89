#include "tuning_logs/sqlite_statement.h"

#include "core/error.h"

namespace kiln::tuning {

SqliteConnection::SqliteConnection(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    KILN_USER_ERROR() << path << ": cannot open the tuning database: " << msg;
  }
  sqlite3_extended_result_codes(db_, 1);
}

SqliteConnection::~SqliteConnection() { sqlite3_close(db_); }

void SqliteConnection::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    KILN_USER_ERROR() << path_ << ": " << msg;
  }
}

void SqliteConnection::transaction(const std::function<void()>& body) {
  exec("BEGIN IMMEDIATE");
  try {
    body();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void SqliteConnection::fail(const std::string& what) const {
  KILN_USER_ERROR() << path_ << ": " << what << ": " << sqlite3_errmsg(db_);
}

SqliteStatement::SqliteStatement(SqliteConnection& c, const std::string& sql) : c_(c) {
  if (sqlite3_prepare_v2(c.get(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) c.fail("cannot prepare a query");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::bind(int i, const std::string& v) {
  if (sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    c_.fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, double v) {
  if (sqlite3_bind_double(stmt_, i, v) != SQLITE_OK) c_.fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, int64_t v) {
  if (sqlite3_bind_int64(stmt_, i, v) != SQLITE_OK) c_.fail("cannot bind a value");
  return *this;
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  c_.fail("query failed");
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStatement::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string();
}

double SqliteStatement::real(int col) const { return sqlite3_column_double(stmt_, col); }

int64_t SqliteStatement::integer(int col) const { return sqlite3_column_int64(stmt_, col); }

}  // namespace kiln::tuning
