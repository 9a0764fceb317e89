// The tuning database's interface: narrow on purpose, so that a
// server-backed store (PostgreSQL, for a device farm) can stand in for the
// embedded SQLite one (sqlite_database.h) without the tuner noticing.
//
//   auto db = open_sqlite_database("tuning.db");
//   db->add_workload({key, ir_json, "matmul", "matmul:M=512,...", 2.7e8});
//   db->add_records(batch);                       // one transaction per batch
//   auto best = db->top_k(key, target.str(), 5);  // fastest valid first
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuning_logs/record.h"

namespace kiln::tuning {

// The best valid record of a workload on one target (as top_k ranks them):
// its final measurement's median, or its median.
struct WorkloadBest {
  std::string workload_key;
  std::string target;
  double secs = 0;
};

// How a database is opened: a tuning job creates one, commands that read
// (kiln db stats, bench-op --db) require it, so that a mistyped name is an
// error and not a new, empty database.
enum class OpenMode {
  kCreate,    // create the file, or the schema on a server, if missing
  kExisting,  // it must exist
};

class Database {
 public:
  virtual ~Database() = default;

  // Adds a workload if its key is new. Throws kiln::Error when the key is
  // already held by a different computation (another IR JSON).
  virtual void add_workload(const WorkloadEntry& w) = 0;
  virtual std::optional<WorkloadEntry> workload(const std::string& key) = 0;

  // Every workload, by key.
  virtual std::vector<WorkloadEntry> workloads() = 0;

  // Adds a measured batch atomically: all of it, or (on any error) none.
  // Every record's workload must have been added. With skip_duplicates, a
  // record whose (workload, target, trace) the database already holds is
  // left out (merging and importing). Returns how many were added. Throws
  // kiln::Error.
  virtual int64_t add_records(const std::vector<TuningRecord>& records, bool skip_duplicates = false) = 0;
  // Adds repeats to a record's final measurement (TuningRecord::final_secs;
  // earlier ones are kept), which it is ranked by from then on, ahead of
  // the records without one. With an
  // error kind other than kNone the record failed when timed again (a
  // wrong answer, a crash): it takes that error, its times kept, and is
  // never served again. Throws kiln::Error when no record has this id.
  virtual void add_final_measurement(int64_t record_id, const std::vector<double>& secs,
                                     ErrorKind error_kind = ErrorKind::kNone, const std::string& error_message = "") = 0;
  // Calls fn on every record, in the order they were added.
  virtual void for_each_record(const std::function<void(const TuningRecord&)>& fn) = 0;
  // Keeps the k best valid records (as top_k ranks them) of every (workload, target) and
  // deletes the rest, failed ones included. Returns how many went.
  virtual int64_t prune(int k) = 0;

  // The k best valid records (no error, with times) of a workload on
  // exactly this target (and device, when given), best first: those with
  // a final measurement (a job's shortlist, timed together at its end) by
  // its median, then the others by theirs.
  virtual std::vector<TuningRecord> top_k(const std::string& workload_key, const std::string& target, int k,
                                          const std::string& device_key = "") = 0;
  // Every record, failed ones included, of a workload on exactly this
  // target, in the order they were added: what a tuning job resumes from
  // (the traces it must not measure again, the trials it has done).
  virtual std::vector<TuningRecord> records_of(const std::string& workload_key, const std::string& target) = 0;
  // How many records_of would return, without reading them: what a model's
  // tuning counts for every task before it starts.
  virtual int64_t count_records(const std::string& workload_key, const std::string& target) = 0;
  // The targets the database holds records of for a workload, sorted: what
  // to tell a user whose target has none.
  virtual std::vector<std::string> targets_of(const std::string& workload_key) = 0;
  // For every (workload, target) with a valid record, the best as top_k ranks them,
  // ordered by workload key then target.
  virtual std::vector<WorkloadBest> best_per_workload() = 0;
  // Records per workload key.
  virtual std::map<std::string, int64_t> counts_by_workload() = 0;
  // Records per error kind ("none" for valid ones).
  virtual std::map<std::string, int64_t> counts_by_error() = 0;
  // Records per target string: one database holds every target's (x86
  // CPUs, aarch64, GPUs) side by side, keyed apart by these.
  virtual std::map<std::string, int64_t> counts_by_target() = 0;
  virtual int64_t num_records() = 0;
};

}  // namespace kiln::tuning
