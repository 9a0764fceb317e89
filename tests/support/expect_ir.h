// Before/after tests of IR passes, written as IR text (docs/ir_text.md):
//
//   const PrimFunc before = parse_prim_func(R"(... T.vectorized(20) ...)");
//   EXPECT_IR(vectorize_loops(before, 8), R"(
//   @T.prim_func
//   def g(A: T.Buffer((20,), "float32")):
//       for j_outer in range(2):
//           A[T.Ramp(0 + j_outer * 8, 1, 8)] = T.Broadcast(T.float32(2), 8)
//       A[T.Ramp(16, 1, 4)] = T.Broadcast(T.float32(2), 4)
//   )");
//
// The expected text is parsed and compared with the pass's result
// structurally (names do not matter, the function's parameters and every
// binder map one to one). On a mismatch the failure shows both as kiln
// prints them and a line diff between them, so that what the pass got
// wrong reads at a glance.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "tir/stmt.h"

namespace kiln::testing {

::testing::AssertionResult ir_matches(const PrimFunc& actual, const std::string& expected_text);

// The lines of `a` and `b` as a diff: "  " common, "- " only in a, "+ " only in b.
std::string line_diff(const std::string& a, const std::string& b);

}  // namespace kiln::testing

#define EXPECT_IR(actual, expected_text) EXPECT_TRUE(::kiln::testing::ir_matches((actual), (expected_text)))
#define ASSERT_IR(actual, expected_text) ASSERT_TRUE(::kiln::testing::ir_matches((actual), (expected_text)))
