// What `kiln tune-op` and `kiln tune` share: the search strategy their
// flags name, Ctrl-C as a request to stop, and how a duration reads in a
// progress line.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "search/strategy.h"

namespace kiln::cli {

// "evolutionary" with a cost model ("xgb", fresh; "random"; or a model
// file written by kiln costmodel train), or "random" search. The search and
// a fresh XGBoost model run on `threads` threads, between batches.
std::unique_ptr<search::SearchStrategy> make_strategy(const std::string& strategy, const std::string& cost_model,
                                                      uint64_t seed, int threads);

// While it lives, the first Ctrl-C sets stop() (the job finishes the batch
// in flight, keeps it, and stops); a second one ends the process at once.
class StopOnInterrupt {
 public:
  StopOnInterrupt();
  ~StopOnInterrupt();
  const std::atomic<bool>* stop() const;
};

// "42s", "3m05s", "1h02m".
std::string clock_text(double seconds);

}  // namespace kiln::cli
