#include "search/pretrain.h"

#include <algorithm>
#include <map>

#include "costmodel/features.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "tuning_logs/apply_record.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::search {

PretrainCounts pretrain(tuning::Database& db, const std::string& target, costmodel::CostModel& model) {
  PretrainCounts counts;
  std::vector<costmodel::ProgramFeatures> xs;
  std::vector<double> ys;
  for (const tuning::WorkloadEntry& w : db.workloads()) {
    PrimFunc f;
    try {
      f = tuning::read_workload_ir(w.ir_json);
    } catch (const Error&) {
      continue;
    }
    std::vector<std::string> targets = target.empty() ? db.targets_of(w.key) : std::vector<std::string>{target};
    bool used = false;
    for (const std::string& t : targets) {
      std::vector<tuning::TuningRecord> valid;
      for (tuning::TuningRecord& r : db.records_of(w.key, t))
        if (r.ok()) valid.push_back(std::move(r));
      if (valid.empty()) continue;
      double best = valid[0].median_secs();
      for (const tuning::TuningRecord& r : valid) best = std::min(best, r.median_secs());
      for (const tuning::TuningRecord& r : valid) {
        try {
          PrimFunc scheduled = tuning::apply_record(r, f);
          xs.push_back(costmodel::extract_features(lower_to_loops(scheduled, {.verify = false})));
          ys.push_back(best / r.median_secs());
          ++counts.records;
          used = true;
        } catch (const Error&) {
          ++counts.skipped;
        }
      }
    }
    counts.workloads += used;
  }
  if (!xs.empty()) model.update(xs, ys);
  return counts;
}

}  // namespace kiln::search
