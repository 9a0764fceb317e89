// Tuning databases as JSON lines: a readable, diffable, mergeable form to
// keep beside the file or share (docs/tuning_database.md).
//
//   {"kiln_tuning": 1, "workload": {"key": "v1-...", "ir_json": "...", ...}}
//   {"kiln_tuning": 1, "record": {"workload_key": "v1-...", "target": "...", ...}}
//
// Workload lines come first; a record's workload must be in the file or the
// database it is imported into.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "tuning_logs/database.h"

namespace kiln::tuning {

// The version every line carries; a reader refuses others.
constexpr int kJsonlVersion = 1;

// A workload's and a record's line bodies (the object under "workload",
// "record"; a record's id is the database's, not written).
nlohmann::json to_json(const WorkloadEntry& w);
nlohmann::json to_json(const TuningRecord& r);

// Writes every workload, then every record. Returns the lines written.
int64_t export_jsonl(Database& db, std::ostream& out);

struct ImportCounts {
  int64_t workloads = 0;   // lines read
  int64_t records = 0;     // lines read
  int64_t added = 0;       // records added
  int64_t duplicates = 0;  // records the database already held
};

// Reads and checks (validate.h) every line of `in` (called `name` in
// messages) before writing anything: a malformed line, an unknown version,
// a workload whose IR is invalid or not its key's, a record that fails its
// checks, a record of an unknown workload or a workload key held by another
// computation is a kiln::Error
// naming `name:line`, and the database is left as it was. Records are added
// in one transaction, skipping those whose (workload, target, trace) the
// database already holds.
ImportCounts import_jsonl(Database& db, std::istream& in, const std::string& name);

// Copies every workload and record of `from` (called `name` in messages)
// into `into`, skipping records `into` already holds (same workload, target
// and trace). Everything is checked first, as import_jsonl does; an error
// names the record's number in `from`, and `into` is left as it was.
ImportCounts merge(Database& into, Database& from, const std::string& name);

}  // namespace kiln::tuning
