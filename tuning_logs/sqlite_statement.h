// A thin RAII layer over SQLite's C API for sqlite_database.cpp: a
// connection, prepared statements with typed binds and columns, and errors
// as kiln::Error naming the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>

namespace kiln::tuning {

class SqliteConnection {
 public:
  // Throws kiln::Error naming `path`.
  SqliteConnection(const std::string& path, int flags);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs SQL without results; throws kiln::Error with SQLite's message.
  void exec(const std::string& sql);
  // Runs `body` in a write transaction (BEGIN IMMEDIATE): committed when it
  // returns, rolled back when it throws (and the exception passed on).
  void transaction(const std::function<void()>& body);
  // Throws kiln::Error: "<path>: <what>: <SQLite's message>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteConnection& c, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Binds are 1-based, as in SQL.
  SqliteStatement& bind(int i, const std::string& v);
  SqliteStatement& bind(int i, double v);
  SqliteStatement& bind(int i, int64_t v);
  // Steps once: true while a row is available, false when done.
  bool step();
  // Resets for the next use with new binds.
  void reset();

  std::string text(int col) const;
  double real(int col) const;
  int64_t integer(int col) const;

 private:
  SqliteConnection& c_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace kiln::tuning
