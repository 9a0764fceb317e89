// A thin RAII layer over libpq, PostgreSQL's C client: what the farm's
// shared state (the tuning database of postgres_database.h, and the job
// queue and runner registry built on it) talks to the server through.
//
// Statements take text parameters ($1, $2, ...; std::nullopt is NULL) and
// give rows of text, the way libpq's text protocol works: numbers are
// printed and read back here, exactly (doubles with 17 digits).
//
// A database URL may hold a password (postgresql://user:secret@host/db).
// Everything this layer says names the server by redact_url(url), which
// never shows it; libpq also takes the password from PGPASSWORD or
// ~/.pgpass, which is what a farm's config should use.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

struct pg_conn;
struct pg_result;

namespace kiln::tuning {

// Whether `where` names a PostgreSQL database (postgresql:// or postgres://)
// rather than a file.
bool is_postgres_url(const std::string& where);

// The URL with its password (user:PASSWORD@ and any password=... parameter)
// replaced by "***"; anything that is not a URL comes back unchanged.
std::string redact_url(const std::string& where);

using PgParam = std::optional<std::string>;

// Exact text forms of numbers for parameters.
std::string pg_text(double v);
std::string pg_text(int64_t v);

class PgResult {
 public:
  explicit PgResult(pg_result* r) : r_(r) {}
  ~PgResult();
  PgResult(PgResult&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  PgResult& operator=(PgResult&&) = delete;

  int rows() const;
  bool is_null(int row, int col) const;
  // A NULL reads as "" and 0.
  std::string text(int row, int col) const;
  double real(int row, int col) const;
  int64_t integer(int row, int col) const;
  // Rows an INSERT, UPDATE or DELETE touched.
  int64_t affected() const;

 private:
  pg_result* r_;
};

class PgConnection {
 public:
  // Connects (10 s timeout). Throws kiln::Error naming the redacted URL
  // with libpq's reason.
  explicit PgConnection(const std::string& url);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // The URL without its password: how to name this database to people.
  const std::string& name() const { return name_; }

  // Runs one statement (or, without params, several separated by ';').
  // A connection the server dropped is reset once before a statement that
  // is not inside a transaction. Throws kiln::Error with the server's
  // message.
  PgResult exec(const std::string& sql, const std::vector<PgParam>& params = {});
  // Runs `body` in a transaction: committed when it returns, rolled back
  // when it throws (and the exception passed on).
  void transaction(const std::function<void()>& body);

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& reason) const;

  pg_conn* conn_ = nullptr;
  std::string name_;
  bool in_transaction_ = false;
};

}  // namespace kiln::tuning
