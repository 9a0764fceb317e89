#include "tuning_logs/validate.h"

#include <cmath>

#include "core/error.h"
#include "core/error_kind.h"
#include "tir/schedule/trace.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::tuning {

void check_workload(const WorkloadEntry& w) {
  if (w.key.empty()) KILN_USER_ERROR() << "workload without a key";
  if (w.op.empty() || w.shape.empty()) KILN_USER_ERROR() << "workload " << w.key << " has no op or shape";
  if (!std::isfinite(w.flops) || w.flops < 0) KILN_USER_ERROR() << "workload " << w.key << " has " << w.flops << " FLOPs";
  Rekeyed now;
  try {
    now = rekey_workload(w.ir_json);
  } catch (const Error& e) {
    KILN_USER_ERROR() << "workload " << w.key << " (" << w.shape << "): its IR is invalid: " << e.what();
  }
  if (now.key != w.key)
    KILN_USER_ERROR() << "workload " << w.key << " (" << w.shape << "): its IR has the key " << now.key;
}

void check_record(const TuningRecord& r) {
  if (r.workload_key.empty()) KILN_USER_ERROR() << "record without a workload key";
  if (r.target.empty()) KILN_USER_ERROR() << "record of workload " << r.workload_key << " without a target";
  for (double s : r.run_secs)
    if (!std::isfinite(s) || s <= 0) KILN_USER_ERROR() << "record with a run time of " << s << " s";
  for (double s : r.final_secs)
    if (!std::isfinite(s) || s <= 0) KILN_USER_ERROR() << "record with a final run time of " << s << " s";
  if (!r.final_secs.empty() && r.run_secs.empty()) KILN_USER_ERROR() << "record with a final measurement but no run times";
  if (!std::isfinite(r.build_ms) || r.build_ms < 0) KILN_USER_ERROR() << "record with a build time of " << r.build_ms << " ms";
  try {
    Trace::parse(r.trace_json);
  } catch (const Error& e) {
    KILN_USER_ERROR() << "record of workload " << r.workload_key << ": " << e.what();
  }
}

}  // namespace kiln::tuning
