// What the tuning database holds: the workloads it knows and one record per
// measured candidate (docs/tuning_database.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error_kind.h"

namespace kiln::tuning {

// A workload: its key, the canonical IR JSON of its unscheduled function
// (to tell a key collision from a match), and what people read.
struct WorkloadEntry {
  std::string key;
  std::string ir_json;
  std::string op;     // "matmul"
  std::string shape;  // the workload string, "matmul:M=512,N=512,K=512,dtype=float32"
  double flops = 0;
};

// One measured candidate, failed ones included: a failure is knowledge too.
struct TuningRecord {
  int64_t id = 0;  // the database's number for it once stored; 0 before
  std::string workload_key;
  std::string target;  // canonical target string
  std::string device_key;
  std::string cpu_model;
  std::string trace_json;
  std::vector<double> run_secs;  // every repeat's seconds per run
  // The final measurement: at the end of a tuning job its shortlist (the
  // fastest by their first measurement) is timed again, at length, in one
  // batch (search/tuner.h). The best of a thousand short, noisy
  // measurements is biased low (the winner's curse); these repeats say
  // what the kernel runs at. Empty: not timed again.
  std::vector<double> final_secs;
  double build_ms = 0;
  ErrorKind error_kind = ErrorKind::kNone;
  std::string error_message;
  int feature_version = 0;  // the cost model's feature schema; 0: none
  std::string kiln_version;
  int64_t created_at = 0;  // unix seconds

  bool ok() const { return error_kind == ErrorKind::kNone && !run_secs.empty(); }
  double mean_secs() const;
  double median_secs() const;
  // The time a record is ranked by (Database::top_k, which puts the records
  // with a final measurement first): the final measurement's median where
  // there is one, else the median.
  double rank_secs() const;
};

// The kind a database or a JSON-lines file names, read where it is read:
// kiln::Error naming the record when the name is none of core/error_kind.h's.
ErrorKind stored_error_kind(const std::string& name, int64_t record_id);

// A short hash of a trace's JSON (FNV-1a, 16 hex digits): how a database
// finds a trace's duplicates through an index without indexing whole traces.
std::string trace_hash(const std::string& trace_json);

}  // namespace kiln::tuning
