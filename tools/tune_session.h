// What `kiln tune-op` and `kiln tune` share: Ctrl-C as a request to stop,
// and how a duration reads in a progress line (the strategy their flags
// name comes from search/strategy_by_name.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::cli {

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
