#include "tuning_logs/pg_connection.h"

#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <regex>

#include "core/error.h"

namespace kiln::tuning {

bool is_postgres_url(const std::string& where) {
  return where.rfind("postgresql://", 0) == 0 || where.rfind("postgres://", 0) == 0;
}

std::string redact_url(const std::string& where) {
  if (!is_postgres_url(where)) return where;
  // user:password@ in the authority, then password=... among the parameters.
  static const std::regex userinfo(R"(^(postgres(?:ql)?://[^:/@?]*):[^@/?]*@)");
  static const std::regex param(R"(([?&]password=)[^&]*)");
  std::string out = std::regex_replace(where, userinfo, "$1:***@");
  return std::regex_replace(out, param, "$1***");
}

std::string pg_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string pg_text(int64_t v) { return std::to_string(v); }

PgResult::~PgResult() {
  if (r_) PQclear(r_);
}

int PgResult::rows() const { return PQntuples(r_); }

bool PgResult::is_null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }

std::string PgResult::text(int row, int col) const {
  return std::string(PQgetvalue(r_, row, col), static_cast<size_t>(PQgetlength(r_, row, col)));
}

double PgResult::real(int row, int col) const { return is_null(row, col) ? 0 : std::strtod(PQgetvalue(r_, row, col), nullptr); }

int64_t PgResult::integer(int row, int col) const {
  return is_null(row, col) ? 0 : std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
}

int64_t PgResult::affected() const {
  const char* n = PQcmdTuples(r_);
  return *n ? std::strtoll(n, nullptr, 10) : 0;
}

namespace {
// The server's NOTICEs ("schema already exists, skipping") are not for users.
void ignore_notice(void*, const char*) {}

std::string trimmed(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
}  // namespace

PgConnection::PgConnection(const std::string& url) : name_(redact_url(url)) {
  // Our settings first: expand_dbname lets the URL's own override them.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "kiln", url.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (!conn_) fail("cannot connect", "out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = PQerrorMessage(conn_);
    PQfinish(conn_);  // no destructor runs for a constructor that throws
    conn_ = nullptr;
    fail("cannot connect", why);
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

void PgConnection::fail(const std::string& what, const std::string& reason) const {
  KILN_USER_ERROR() << name_ << ": " << what << ": " << trimmed(reason.c_str());
}

PgResult PgConnection::exec(const std::string& sql, const std::vector<PgParam>& params) {
  if (PQstatus(conn_) != CONNECTION_OK && !in_transaction_) {
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) fail("lost the connection", PQerrorMessage(conn_));
  }
  pg_result* r = nullptr;
  if (params.empty()) {
    r = PQexec(conn_, sql.c_str());
  } else {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const PgParam& p : params) values.push_back(p ? p->c_str() : nullptr);
    r = PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr,
                     0);
  }
  PgResult result(r);
  const ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
    fail("statement failed", r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
  }
  return result;
}

void PgConnection::transaction(const std::function<void()>& body) {
  KILN_ICHECK(!in_transaction_) << "nested PostgreSQL transaction on " << name_;
  exec("BEGIN");
  in_transaction_ = true;
  try {
    body();
    in_transaction_ = false;
    exec("COMMIT");
  } catch (...) {
    in_transaction_ = false;
    if (PQstatus(conn_) == CONNECTION_OK) PQclear(PQexec(conn_, "ROLLBACK"));
    throw;
  }
}

}  // namespace kiln::tuning
