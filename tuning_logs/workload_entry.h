// A workload as the database keeps it: made from a PrimFunc, and read back.
#pragma once

#include <string>

#include "tir/stmt.h"
#include "tuning_logs/record.h"
#include "tuning_logs/sqlite_schema.h"

namespace kiln::tuning {

// f's entry: its workload key and canonical IR JSON, with the names people read.
WorkloadEntry workload_entry(const PrimFunc& f, std::string op, std::string shape, double flops);

// The PrimFunc a stored IR JSON holds, verified (types included). Throws
// kiln::Error saying what is wrong.
PrimFunc read_workload_ir(const std::string& ir_json);

// Whether two IR JSON documents hold the same function: byte-equal, or
// structurally equal (names are hints). Unreadable JSON differs from
// anything. What a database checks before it lets a new workload share a
// key with the one it holds.
bool same_computation(const std::string& a, const std::string& b);

// The key and canonical JSON this kiln gives a stored IR JSON: what a file
// keyed by an older scheme migrates to.
Rekeyed rekey_workload(const std::string& ir_json);

}  // namespace kiln::tuning
