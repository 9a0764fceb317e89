// Pre-training a cost model from a tuning database, so that a new job
// starts from what earlier jobs learned (TenSet's pretrained models, the
// transfer of search-sota.md): every valid record of the given target is
// replayed on its workload's stored IR, featurized, and labelled with its
// throughput relative to the best record of its workload.
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/cost_model.h"
#include "tuning_logs/database.h"

namespace kiln::search {

struct PretrainCounts {
  int64_t workloads = 0;
  int64_t records = 0;   // valid records learned from
  int64_t skipped = 0;   // valid records whose trace no longer replays
};

// Trains `model` on the database's valid records for `target` (all targets
// when empty).
PretrainCounts pretrain(tuning::Database& db, const std::string& target, costmodel::CostModel& model);

}  // namespace kiln::search
