// Integer division rounding toward negative infinity, as FloorDiv and
// FloorMod define it (core/expr.h): what constant folding, the simplifier
// and the code generator's index analysis compute on int64 constants.
#pragma once

#include <cstdint>

namespace kiln {

// a / b rounded down; b != 0.
inline int64_t floordiv_i(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a - floordiv_i(a, b) * b: the sign of b; b != 0.
inline int64_t floormod_i(int64_t a, int64_t b) { return a - floordiv_i(a, b) * b; }

}  // namespace kiln
