#include "tuning_logs/sqlite_database.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/record_sql.h"
#include "tuning_logs/sqlite_schema.h"
#include "tuning_logs/sqlite_statement.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::tuning {
namespace {

// PRAGMA application_id of every kiln tuning database: "KILN".
constexpr int64_t kApplicationId = 0x4B494C4E;

int64_t pragma(SqliteConnection& c, const std::string& name) {
  SqliteStatement s(c, "PRAGMA " + name);
  return s.step() ? s.integer(0) : 0;
}

// Reads a row selected as "id, " + kRecordColumns.
TuningRecord read_record(const SqliteStatement& s) {
  TuningRecord r;
  r.id = s.integer(0);
  r.workload_key = s.text(1);
  r.target = s.text(2);
  r.device_key = s.text(3);
  r.cpu_model = s.text(4);
  r.trace_json = s.text(5);
  r.run_secs = nlohmann::json::parse(s.text(6)).get<std::vector<double>>();
  r.build_ms = s.real(7);
  r.error_kind = stored_error_kind(s.text(8), r.id);
  r.error_message = s.text(9);
  r.feature_version = static_cast<int>(s.integer(10));
  r.kiln_version = s.text(11);
  r.created_at = s.integer(12);
  if (std::string f = s.text(13); !f.empty()) r.final_secs = nlohmann::json::parse(f).get<std::vector<double>>();
  return r;
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const std::string& path, OpenMode mode)
      : c_(path, SQLITE_OPEN_READWRITE | (mode == OpenMode::kCreate ? SQLITE_OPEN_CREATE : 0)) {
    sqlite3_busy_timeout(c_.get(), 10000);
    open_or_create();
    c_.exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;");
  }

  void add_workload(const WorkloadEntry& w) override {
    SqliteStatement ins(c_, "INSERT OR IGNORE INTO workloads(key, ir_json, op, shape, flops) VALUES(?,?,?,?,?)");
    ins.bind(1, w.key).bind(2, w.ir_json).bind(3, w.op).bind(4, w.shape).bind(5, w.flops);
    ins.step();
    std::optional<WorkloadEntry> held = workload(w.key);
    if (held && !same_computation(held->ir_json, w.ir_json))
      KILN_USER_ERROR() << c_.path() << ": workload key " << w.key << " is held by another computation ("
                        << held->shape << ", not " << w.shape << ")";
  }

  std::optional<WorkloadEntry> workload(const std::string& key) override {
    SqliteStatement q(c_, "SELECT key, ir_json, op, shape, flops FROM workloads WHERE key = ?");
    q.bind(1, key);
    if (!q.step()) return std::nullopt;
    return WorkloadEntry{q.text(0), q.text(1), q.text(2), q.text(3), q.real(4)};
  }

  std::vector<WorkloadEntry> workloads() override {
    SqliteStatement q(c_, "SELECT key, ir_json, op, shape, flops FROM workloads ORDER BY key");
    std::vector<WorkloadEntry> out;
    while (q.step()) out.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.real(4)});
    return out;
  }

  int64_t add_records(const std::vector<TuningRecord>& records, bool skip_duplicates) override {
    int64_t added = 0;
    c_.transaction([&] {
      SqliteStatement dup(c_,
                          "SELECT 1 FROM records WHERE workload_key = ? AND target = ? AND trace_hash = ? "
                          "AND trace_json = ? LIMIT 1");
      SqliteStatement ins(c_, std::string("INSERT INTO records(") + kRecordColumns +
                                  ", mean_secs, median_secs, trace_hash, rank_secs) "
                                  "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      for (const TuningRecord& r : records) {
        if (skip_duplicates) {
          dup.bind(1, r.workload_key).bind(2, r.target).bind(3, trace_hash(r.trace_json)).bind(4, r.trace_json);
          bool seen = dup.step();
          dup.reset();
          if (seen) continue;
        }
        ins.bind(1, r.workload_key).bind(2, r.target).bind(3, r.device_key).bind(4, r.cpu_model);
        ins.bind(5, r.trace_json).bind(6, nlohmann::json(r.run_secs).dump()).bind(7, r.build_ms);
        ins.bind(8, error_kind_name(r.error_kind)).bind(9, r.error_message).bind(10, static_cast<int64_t>(r.feature_version));
        ins.bind(11, r.kiln_version).bind(12, r.created_at);
        if (!r.final_secs.empty()) ins.bind(13, nlohmann::json(r.final_secs).dump());
        if (!r.run_secs.empty()) ins.bind(14, r.mean_secs()).bind(15, r.median_secs()).bind(17, r.rank_secs());
        ins.bind(16, trace_hash(r.trace_json));
        ins.step();
        ins.reset();
        ++added;
      }
    });
    return added;
  }

  void add_final_measurement(int64_t id, const std::vector<double>& secs, ErrorKind error_kind,
                             const std::string& error_message) override {
    c_.transaction([&] {
      SqliteStatement q(c_, std::string("SELECT id, ") + kRecordColumns + " FROM records WHERE id = ?");
      q.bind(1, id);
      if (!q.step()) KILN_USER_ERROR() << c_.path() << ": no record " << id;
      TuningRecord r = read_record(q);
      r.final_secs.insert(r.final_secs.end(), secs.begin(), secs.end());
      if (error_kind != ErrorKind::kNone) {
        r.error_kind = error_kind;
        r.error_message = "final measurement: " + error_message;
      }
      SqliteStatement up(c_,
                         "UPDATE records SET final_secs = ?, rank_secs = ?, error_kind = ?, error_message = ? "
                         "WHERE id = ?");
      if (!r.final_secs.empty()) up.bind(1, nlohmann::json(r.final_secs).dump());
      if (!r.run_secs.empty()) up.bind(2, r.rank_secs());
      up.bind(3, error_kind_name(r.error_kind)).bind(4, r.error_message).bind(5, id);
      up.step();
    });
  }

  void for_each_record(const std::function<void(const TuningRecord&)>& fn) override {
    SqliteStatement q(c_, std::string("SELECT id, ") + kRecordColumns + " FROM records ORDER BY id");
    while (q.step()) fn(read_record(q));
  }

  int64_t prune(int k) override {
    int64_t gone = 0;
    c_.transaction([&] {
      // Rank each (workload, target)'s valid records as top_k does; keep rank <= k.
      SqliteStatement del(c_, R"sql(
        DELETE FROM records WHERE id NOT IN (
          SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (PARTITION BY workload_key, target ORDER BY )sql" +
                              std::string(kRankOrder) + R"sql() AS rank
            FROM records WHERE error_kind = 'none' AND rank_secs IS NOT NULL)
          WHERE rank <= ?))sql");
      del.bind(1, static_cast<int64_t>(k));
      del.step();
      gone = sqlite3_changes64(c_.get());
    });
    return gone;
  }

  std::vector<TuningRecord> top_k(const std::string& workload_key, const std::string& target, int k,
                                  const std::string& device_key) override {
    std::string sql = std::string("SELECT id, ") + kRecordColumns +
                      " FROM records WHERE workload_key = ? AND target = ? AND error_kind = 'none' "
                      "AND rank_secs IS NOT NULL" +
                      (device_key.empty() ? "" : " AND device_key = ?") + " ORDER BY " + kRankOrder + " LIMIT ?";
    SqliteStatement q(c_, sql);
    q.bind(1, workload_key);
    q.bind(2, target);
    int next = 3;
    if (!device_key.empty()) q.bind(next++, device_key);
    q.bind(next, static_cast<int64_t>(k));
    std::vector<TuningRecord> out;
    while (q.step()) out.push_back(read_record(q));
    return out;
  }

  std::vector<TuningRecord> records_of(const std::string& workload_key, const std::string& target) override {
    SqliteStatement q(c_, std::string("SELECT id, ") + kRecordColumns +
                              " FROM records WHERE workload_key = ? AND target = ? ORDER BY id");
    q.bind(1, workload_key).bind(2, target);
    std::vector<TuningRecord> out;
    while (q.step()) out.push_back(read_record(q));
    return out;
  }

  int64_t count_records(const std::string& workload_key, const std::string& target) override {
    SqliteStatement q(c_, "SELECT COUNT(*) FROM records WHERE workload_key = ? AND target = ?");
    q.bind(1, workload_key).bind(2, target);
    return q.step() ? q.integer(0) : 0;
  }

  std::vector<std::string> targets_of(const std::string& workload_key) override {
    SqliteStatement q(c_, "SELECT DISTINCT target FROM records WHERE workload_key = ? ORDER BY target");
    q.bind(1, workload_key);
    std::vector<std::string> out;
    while (q.step()) out.push_back(q.text(0));
    return out;
  }

  std::vector<WorkloadBest> best_per_workload() override {
    SqliteStatement q(c_, std::string("SELECT workload_key, target, rank_secs FROM (SELECT workload_key, target, "
                                      "rank_secs, ROW_NUMBER() OVER (PARTITION BY workload_key, target ORDER BY ") +
                              kRankOrder +
                              ") AS rank FROM records WHERE error_kind = 'none' AND rank_secs IS NOT NULL) "
                              "WHERE rank = 1 ORDER BY workload_key, target");
    std::vector<WorkloadBest> out;
    while (q.step()) out.push_back({q.text(0), q.text(1), q.real(2)});
    return out;
  }

  std::map<std::string, int64_t> counts_by_workload() override {
    SqliteStatement q(c_, "SELECT workload_key, COUNT(*) FROM records GROUP BY workload_key");
    std::map<std::string, int64_t> out;
    while (q.step()) out[q.text(0)] = q.integer(1);
    return out;
  }

  std::map<std::string, int64_t> counts_by_error() override {
    SqliteStatement q(c_, "SELECT error_kind, COUNT(*) FROM records GROUP BY error_kind");
    std::map<std::string, int64_t> out;
    while (q.step()) out[q.text(0)] = q.integer(1);
    return out;
  }

  std::map<std::string, int64_t> counts_by_target() override {
    SqliteStatement q(c_, "SELECT target, COUNT(*) FROM records GROUP BY target");
    std::map<std::string, int64_t> out;
    while (q.step()) out[q.text(0)] = q.integer(1);
    return out;
  }

  int64_t num_records() override {
    SqliteStatement q(c_, "SELECT COUNT(*) FROM records");
    return q.step() ? q.integer(0) : 0;
  }

 private:
  // Creates the schema in an empty file, checks what any other file is, and
  // migrates an older one (schema, then workload keys), each in one
  // transaction that leaves the file as it was if it fails.
  void open_or_create() {
    int64_t app = 0, version = 0, tables = 0;
    auto read_state = [&] {
      app = pragma(c_, "application_id");
      version = pragma(c_, "user_version");
      SqliteStatement q(c_, "SELECT COUNT(*) FROM sqlite_master");
      tables = q.step() ? q.integer(0) : 0;
    };
    try {
      read_state();
    } catch (const Error& e) {
      KILN_USER_ERROR() << c_.path() << " is not a kiln tuning database, or is corrupt (" << e.what() << ")";
    }
    const bool empty = app == 0 && tables == 0;
    if (!empty && app != kApplicationId) KILN_USER_ERROR() << c_.path() << " is not a kiln tuning database";
    if (version > kSchemaVersion)
      KILN_USER_ERROR() << c_.path() << " has schema version " << version << ", newer than this kiln's "
                        << kSchemaVersion << ": use a newer kiln";
    if (!empty && version < 1) KILN_USER_ERROR() << c_.path() << " has an unknown schema version " << version;
    if (version < kSchemaVersion) {
      c_.transaction([&] {
        read_state();  // another process may have done it meanwhile
        if (app == 0 && tables == 0) {
          migrate_schema(c_, 0);
          c_.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
        } else if (version < kSchemaVersion) {
          migrate_schema(c_, static_cast<int>(version));
        }
      });
    }
    int keys = stored_workload_key_version(c_);
    if (keys > kWorkloadKeyVersion)
      KILN_USER_ERROR() << c_.path() << " uses workload keys v" << keys << ", newer than this kiln's v"
                        << kWorkloadKeyVersion << ": use a newer kiln";
    if (keys < kWorkloadKeyVersion) {
      c_.transaction([&] {
        if (stored_workload_key_version(c_) < kWorkloadKeyVersion)
          migrate_workload_keys(c_, kWorkloadKeyVersion, rekey_workload);
      });
    }
  }

  SqliteConnection c_;
};

}  // namespace

std::unique_ptr<Database> open_sqlite_database(const std::string& path, OpenMode mode) {
  return std::make_unique<SqliteDatabase>(path, mode);
}

}  // namespace kiln::tuning
