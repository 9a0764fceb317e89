#include "tuning_logs/apply_record.h"

#include "core/error.h"
#include "tir/analysis/workload_key.h"
#include "tir/schedule/schedule.h"

namespace kiln::tuning {

PrimFunc stored_form(const PrimFunc& func) { return canonical_workload(func); }

Trace record_trace(const TuningRecord& r) {
  try {
    return Trace::parse(r.trace_json);
  } catch (const Error& e) {
    KILN_USER_ERROR() << "record " << r.id << " (workload " << r.workload_key << ") holds a trace that cannot be read: "
                      << e.what();
  }
}

PrimFunc apply_record(const TuningRecord& r, const PrimFunc& func) {
  const Trace trace = record_trace(r);
  try {
    return apply_trace(trace, stored_form(func)).func();
  } catch (const Error& e) {
    KILN_USER_ERROR() << "record " << r.id << " (workload " << r.workload_key << ") holds a trace that no longer applies: "
                      << e.what();
  }
}

}  // namespace kiln::tuning
