#include "tuning_logs/best.h"

#include "tir/analysis/workload_key.h"

namespace kiln::tuning {

std::optional<TuningRecord> best_record(Database& db, const PrimFunc& f, const std::string& target) {
  std::vector<TuningRecord> best = db.top_k(workload_key(f), target, 1);
  if (best.empty()) return std::nullopt;
  return best.front();
}

std::string no_record_message(Database& db, const PrimFunc& f, const std::string& target) {
  const std::string key = workload_key(f);
  std::vector<std::string> targets = db.targets_of(key);
  std::string s = "no valid record of workload " + key + " for target '" + target + "'";
  if (targets.empty()) return s + "; the database holds none of this workload";
  s += "; it holds records of this workload for:";
  for (const std::string& t : targets) s += " '" + t + "'";
  return s;
}

}  // namespace kiln::tuning
