// The check every test of a scheduled program makes: it computes what the
// unscheduled program computes, in the reference interpreter and as LLVM
// code. Linked into every test binary (tests/CMakeLists.txt).
#pragma once

#include "tir/stmt.h"

namespace kiln::testing {

// Runs `scheduled` in the interpreter and as LLVM code (1 and 2 threads) on
// the same seeded inputs as `original` in the interpreter; fails the test
// when the outputs differ beyond float32 rounding.
void expect_same_results(const PrimFunc& original, const PrimFunc& scheduled);

}  // namespace kiln::testing
