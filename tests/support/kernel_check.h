// The check every test of a scheduled program makes: it computes what the
// unscheduled program computes, in the reference interpreter and as LLVM
// code. Linked into every test binary (tests/CMakeLists.txt).
#pragma once

#include <vector>

#include "targets/runtime/ndarray.h"
#include "tir/stmt.h"

namespace kiln::testing {

// Runs `scheduled` in the interpreter and as LLVM code (1 and 2 threads) on
// the same seeded inputs as `original` in the interpreter; fails the test
// when the outputs differ beyond float32 rounding.
void expect_same_results(const PrimFunc& original, const PrimFunc& scheduled);

// The same check for many schedules of one program: the original is
// interpreted once, when constructed (at a ResNet layer's size, a second
// or more of interpreting per schedule saved).
class SameResults {
 public:
  explicit SameResults(const PrimFunc& original);
  void expect(const PrimFunc& scheduled) const;

 private:
  PrimFunc original_;
  std::vector<NDArray> inputs_;
  NDArray want_;
};

}  // namespace kiln::testing
