#include "tuning_logs/workload_entry.h"

#include "core/json.h"
#include "core/structural.h"
#include "tir/analysis/verify.h"
#include "tir/analysis/workload_key.h"

namespace kiln::tuning {

WorkloadEntry workload_entry(const PrimFunc& f, std::string op, std::string shape, double flops) {
  return {workload_key(f), save_json(canonical_workload(f)), std::move(op), std::move(shape), flops};
}

PrimFunc read_workload_ir(const std::string& ir_json) {
  PrimFunc f = load_json_as<PrimFunc>(ir_json);
  verify(f);
  return f;
}

bool same_computation(const std::string& a, const std::string& b) {
  if (a == b) return true;
  try {
    return structural_equal(load_json(a), load_json(b));
  } catch (const std::exception&) {
    return false;
  }
}

Rekeyed rekey_workload(const std::string& ir_json) {
  PrimFunc f = read_workload_ir(ir_json);
  return {workload_key(f), save_json(canonical_workload(f))};
}

}  // namespace kiln::tuning
