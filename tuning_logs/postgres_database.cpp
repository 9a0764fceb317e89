#include "tuning_logs/postgres_database.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tuning_logs/pg_connection.h"
#include "tuning_logs/postgres_schema.h"
#include "tuning_logs/record_sql.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::tuning {
namespace {

const std::string kSelectRecord = std::string("SELECT id, ") + kRecordColumns + " FROM records";

// Reads row i of a result selected as kSelectRecord.
TuningRecord read_record(const PgResult& q, int i) {
  TuningRecord r;
  r.id = q.integer(i, 0);
  r.workload_key = q.text(i, 1);
  r.target = q.text(i, 2);
  r.device_key = q.text(i, 3);
  r.cpu_model = q.text(i, 4);
  r.trace_json = q.text(i, 5);
  r.run_secs = nlohmann::json::parse(q.text(i, 6)).get<std::vector<double>>();
  r.build_ms = q.real(i, 7);
  r.error_kind = stored_error_kind(q.text(i, 8), r.id);
  r.error_message = q.text(i, 9);
  r.feature_version = static_cast<int>(q.integer(i, 10));
  r.kiln_version = q.text(i, 11);
  r.created_at = q.integer(i, 12);
  if (!q.is_null(i, 13)) r.final_secs = nlohmann::json::parse(q.text(i, 13)).get<std::vector<double>>();
  return r;
}

std::vector<TuningRecord> read_records(const PgResult& q) {
  std::vector<TuningRecord> out;
  out.reserve(static_cast<size_t>(q.rows()));
  for (int i = 0; i < q.rows(); ++i) out.push_back(read_record(q, i));
  return out;
}

std::map<std::string, int64_t> read_counts(const PgResult& q) {
  std::map<std::string, int64_t> out;
  for (int i = 0; i < q.rows(); ++i) out[q.text(i, 0)] = q.integer(i, 1);
  return out;
}

PgParam json_text(const std::vector<double>& v) { return nlohmann::json(v).dump(); }

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const std::string& url, OpenMode mode) : c_(url) { prepare_pg_schema(c_, mode == OpenMode::kCreate); }

  void add_workload(const WorkloadEntry& w) override {
    c_.exec(
        "INSERT INTO workloads(key, ir_json, op, shape, flops) VALUES($1, $2, $3, $4, $5) "
        "ON CONFLICT(key) DO NOTHING",
        {w.key, w.ir_json, w.op, w.shape, pg_text(w.flops)});
    std::optional<WorkloadEntry> held = workload(w.key);
    if (held && !same_computation(held->ir_json, w.ir_json))
      KILN_USER_ERROR() << c_.name() << ": workload key " << w.key << " is held by another computation ("
                        << held->shape << ", not " << w.shape << ")";
  }

  std::optional<WorkloadEntry> workload(const std::string& key) override {
    PgResult q = c_.exec("SELECT key, ir_json, op, shape, flops FROM workloads WHERE key = $1", {key});
    if (q.rows() == 0) return std::nullopt;
    return WorkloadEntry{q.text(0, 0), q.text(0, 1), q.text(0, 2), q.text(0, 3), q.real(0, 4)};
  }

  std::vector<WorkloadEntry> workloads() override {
    PgResult q = c_.exec("SELECT key, ir_json, op, shape, flops FROM workloads ORDER BY key COLLATE \"C\"");
    std::vector<WorkloadEntry> out;
    for (int i = 0; i < q.rows(); ++i) out.push_back({q.text(i, 0), q.text(i, 1), q.text(i, 2), q.text(i, 3), q.real(i, 4)});
    return out;
  }

  int64_t add_records(const std::vector<TuningRecord>& records, bool skip_duplicates) override {
    static const std::string insert = std::string("INSERT INTO records(") + kRecordColumns +
                                      ", mean_secs, median_secs, trace_hash, rank_secs) "
                                      "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)";
    int64_t added = 0;
    c_.transaction([&] {
      for (const TuningRecord& r : records) {
        const std::string hash = trace_hash(r.trace_json);
        if (skip_duplicates &&
            c_.exec("SELECT 1 FROM records WHERE workload_key = $1 AND target = $2 AND trace_hash = $3 "
                    "AND trace_json = $4 LIMIT 1",
                    {r.workload_key, r.target, hash, r.trace_json})
                    .rows() > 0)
          continue;
        const bool timed = !r.run_secs.empty();
        c_.exec(insert, {r.workload_key, r.target, r.device_key, r.cpu_model, r.trace_json, *json_text(r.run_secs),
                         pg_text(r.build_ms), error_kind_name(r.error_kind), r.error_message,
                         pg_text(static_cast<int64_t>(r.feature_version)), r.kiln_version, pg_text(r.created_at),
                         r.final_secs.empty() ? std::nullopt : json_text(r.final_secs),
                         timed ? PgParam(pg_text(r.mean_secs())) : std::nullopt,
                         timed ? PgParam(pg_text(r.median_secs())) : std::nullopt, hash,
                         timed ? PgParam(pg_text(r.rank_secs())) : std::nullopt});
        ++added;
      }
    });
    return added;
  }

  void add_final_measurement(int64_t id, const std::vector<double>& secs, ErrorKind error_kind,
                             const std::string& error_message) override {
    c_.transaction([&] {
      PgResult q = c_.exec(kSelectRecord + " WHERE id = $1 FOR UPDATE", {pg_text(id)});
      if (q.rows() == 0) KILN_USER_ERROR() << c_.name() << ": no record " << id;
      TuningRecord r = read_record(q, 0);
      r.final_secs.insert(r.final_secs.end(), secs.begin(), secs.end());
      if (error_kind != ErrorKind::kNone) {
        r.error_kind = error_kind;
        r.error_message = "final measurement: " + error_message;
      }
      c_.exec("UPDATE records SET final_secs = $1, rank_secs = $2, error_kind = $3, error_message = $4 WHERE id = $5",
              {r.final_secs.empty() ? std::nullopt : json_text(r.final_secs),
               r.run_secs.empty() ? std::nullopt : PgParam(pg_text(r.rank_secs())), std::string(error_kind_name(r.error_kind)), r.error_message,
               pg_text(id)});
    });
  }

  void for_each_record(const std::function<void(const TuningRecord&)>& fn) override {
    // In pages, so that a large database is never held in memory at once.
    constexpr int kPage = 1000;
    int64_t after = 0;
    for (;;) {
      PgResult q = c_.exec(kSelectRecord + " WHERE id > $1 ORDER BY id LIMIT " + std::to_string(kPage), {pg_text(after)});
      for (int i = 0; i < q.rows(); ++i) {
        TuningRecord r = read_record(q, i);
        after = r.id;
        fn(r);
      }
      if (q.rows() < kPage) return;
    }
  }

  int64_t prune(int k) override {
    int64_t gone = 0;
    c_.transaction([&] {
      gone = c_.exec(std::string(R"sql(
        DELETE FROM records WHERE id NOT IN (
          SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (PARTITION BY workload_key, target ORDER BY )sql") +
                         kRankOrder + R"sql() AS rank
            FROM records WHERE error_kind = 'none' AND rank_secs IS NOT NULL) AS ranked
          WHERE rank <= $1))sql",
                     {pg_text(static_cast<int64_t>(k))})
                 .affected();
    });
    return gone;
  }

  std::vector<TuningRecord> top_k(const std::string& workload_key, const std::string& target, int k,
                                  const std::string& device_key) override {
    std::vector<PgParam> params = {workload_key, target, pg_text(static_cast<int64_t>(k))};
    std::string sql = kSelectRecord +
                      " WHERE workload_key = $1 AND target = $2 AND error_kind = 'none' AND rank_secs IS NOT NULL";
    if (!device_key.empty()) {
      sql += " AND device_key = $4";
      params.push_back(device_key);
    }
    return read_records(c_.exec(sql + " ORDER BY " + kRankOrder + " LIMIT $3", params));
  }

  std::vector<TuningRecord> records_of(const std::string& workload_key, const std::string& target) override {
    return read_records(
        c_.exec(kSelectRecord + " WHERE workload_key = $1 AND target = $2 ORDER BY id", {workload_key, target}));
  }

  int64_t count_records(const std::string& workload_key, const std::string& target) override {
    return c_.exec("SELECT COUNT(*) FROM records WHERE workload_key = $1 AND target = $2", {workload_key, target})
        .integer(0, 0);
  }

  std::vector<std::string> targets_of(const std::string& workload_key) override {
    PgResult q = c_.exec("SELECT DISTINCT target COLLATE \"C\" FROM records WHERE workload_key = $1 ORDER BY 1", {workload_key});
    std::vector<std::string> out;
    for (int i = 0; i < q.rows(); ++i) out.push_back(q.text(i, 0));
    return out;
  }

  std::vector<WorkloadBest> best_per_workload() override {
    PgResult q = c_.exec(std::string("SELECT workload_key, target, rank_secs FROM (SELECT workload_key, target, "
                                     "rank_secs, ROW_NUMBER() OVER (PARTITION BY workload_key, target ORDER BY ") +
                         kRankOrder +
                         ") AS rank FROM records WHERE error_kind = 'none' AND rank_secs IS NOT NULL) AS ranked "
                         "WHERE rank = 1 ORDER BY workload_key COLLATE \"C\", target COLLATE \"C\"");
    std::vector<WorkloadBest> out;
    for (int i = 0; i < q.rows(); ++i) out.push_back({q.text(i, 0), q.text(i, 1), q.real(i, 2)});
    return out;
  }

  std::map<std::string, int64_t> counts_by_workload() override {
    return read_counts(c_.exec("SELECT workload_key, COUNT(*) FROM records GROUP BY workload_key"));
  }

  std::map<std::string, int64_t> counts_by_error() override {
    return read_counts(c_.exec("SELECT error_kind, COUNT(*) FROM records GROUP BY error_kind"));
  }

  std::map<std::string, int64_t> counts_by_target() override {
    return read_counts(c_.exec("SELECT target, COUNT(*) FROM records GROUP BY target"));
  }

  int64_t num_records() override { return c_.exec("SELECT COUNT(*) FROM records").integer(0, 0); }

 private:
  PgConnection c_;
};

}  // namespace

std::unique_ptr<Database> open_postgres_database(const std::string& url, OpenMode mode) {
  return std::make_unique<PostgresDatabase>(url, mode);
}

}  // namespace kiln::tuning
