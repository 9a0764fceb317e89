// The search strategy a job names, the way `kiln tune-op`, `kiln tune` and
// a farm's daemon (farm/job_runner.h) all read it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "search/strategy.h"

namespace kiln::search {

// "evolutionary" with a cost model ("xgb", fresh; "random"; or a model
// file written by kiln costmodel train), or "random" search. The search and
// a fresh XGBoost model run on `threads` threads, between batches. Throws
// kiln::Error naming a model file that cannot be read.
std::unique_ptr<SearchStrategy> make_strategy(const std::string& strategy, const std::string& cost_model, uint64_t seed,
                                              int threads);

}  // namespace kiln::search
