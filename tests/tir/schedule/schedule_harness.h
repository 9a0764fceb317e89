// What every schedule test checks besides its expected IR: that the
// scheduled function still computes what the unscheduled one does (in the
// reference interpreter and through LLVM), and that its trace survives JSON
// and replays to the same function.
#pragma once

#include <string>

#include "support/kernel_check.h"
#include "tir/schedule/schedule.h"

namespace kiln::testing {

// The unscheduled function of a workload string.
PrimFunc workload_func(const std::string& workload);

// A schedule of a workload with the verifier on after every primitive.
Schedule schedule_of(const std::string& workload, uint64_t seed = 1);

// The trace of `sch`, written to JSON text, read back and replayed on
// `original`, gives a structurally equal function and the same JSON.
void expect_trace_roundtrip(const Schedule& sch, const PrimFunc& original);

// Both of the above.
void expect_valid_schedule(const Schedule& sch, const PrimFunc& original);

}  // namespace kiln::testing

namespace kiln::testing {

// The function `f` equals the one the text describes (docs/ir_text.md).
void expect_ir(const PrimFunc& f, const std::string& text);

}  // namespace kiln::testing
