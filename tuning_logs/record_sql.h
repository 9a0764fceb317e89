// The SQL both database backends share (sqlite_database.cpp,
// postgres_database.cpp): one schema, so one list of record columns and one
// ranking, whatever the dialect around them.
#pragma once

namespace kiln::tuning {

// The columns a record is written and read by, after its id.
constexpr const char* kRecordColumns =
    "workload_key, target, device_key, cpu_model, trace_json, run_secs, build_ms, error_kind, error_message, "
    "feature_version, kiln_version, created_at, final_secs";

// How valid records rank, best first: those timed again at the end of a
// job (its shortlist, timed together) by that, then the rest by their
// median (docs/tuning_database.md). Both SQLite and PostgreSQL order false
// before true.
constexpr const char* kRankOrder = "final_secs IS NULL, rank_secs, id";

}  // namespace kiln::tuning
