// The loops of a reduction block as the rules that factor it see them
// (add_rfactor on a CPU, cross_thread_reduction on a GPU).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tir/schedule/schedule.h"

namespace kiln::search {

struct ReductionNest {
  std::vector<LoopRV> spatial, reduce;  // the block's loops, spatial ones first
  int64_t space = 1, work = 1;          // their extents' products
};

// The block's loops when they are spatial loops, then reduction loops, each
// with a constant extent; nullopt otherwise (a loop that drives both kinds,
// or nothing).
std::optional<ReductionNest> reduction_nest(Schedule& sch, const std::string& block);

}  // namespace kiln::search
