// What `kiln tune-op` and `kiln tune` share: Ctrl-C as a request to stop,
// how a duration reads in a progress line, and how a run that met compiler
// bugs ends (the strategy their flags
// name comes from search/strategy_by_name.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "targets/target.h"

namespace kiln::cli {

// While it lives, the first Ctrl-C sets stop() (the job finishes the batch
// in flight, keeps it, and stops); a second one ends the process at once.
class StopOnInterrupt {
 public:
  StopOnInterrupt();
  ~StopOnInterrupt();
  const std::atomic<bool>* stop() const;
};

// Says on stderr, for a target of another CPU (a local runner emulates it:
// rpc/runner/device.h), that its outputs are checked but its timings mean
// nothing for the device; nothing for this machine's own CPU.
void note_emulation(const Target& target);

// At the end of a run, after its summary: throws kiln::Error (a non-zero
// exit) when `internal_errors` candidates met a compiler bug, naming where
// they are stored and the first one's message; nothing otherwise.
void fail_on_internal_errors(int64_t internal_errors, const std::string& first_message, const std::string& db);

}  // namespace kiln::cli
