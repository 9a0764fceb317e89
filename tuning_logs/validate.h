// Checks of what comes from outside the database (a JSON-lines file,
// another database) before any of it is stored, so that a bad line is an
// error naming it and never a record the tuner later trips on.
//
// A workload's IR must read and verify (operand types included) and hash to
// its key. A record must name a workload and a target, carry a trace that
// reads, a known error kind and sane numbers. Whether the trace still
// applies to its workload is checked where it is used (kiln bench-op --db),
// which names the record.
#pragma once

#include "tuning_logs/record.h"

namespace kiln::tuning {

// Throw kiln::Error saying what is wrong.
void check_workload(const WorkloadEntry& w);
void check_record(const TuningRecord& r);

}  // namespace kiln::tuning
