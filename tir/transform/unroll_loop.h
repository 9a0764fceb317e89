// Unrolled loops to straight-line code.
//
// A loop of kind unroll with a constant extent of at most `max_extent` is
// replaced by that many copies of its body, each with the loop variable
// replaced by its value; the copies then simplify to constant offsets. Longer
// or non-constant unroll loops stay loops, and the code generator treats the
// kind as a hint.
#pragma once

#include "tir/stmt.h"

namespace kiln {

inline constexpr const char* kAutoUnrollMaxStep = "pragma_auto_unroll_max_step";

PrimFunc unroll_loops(const PrimFunc& f, int64_t max_extent = 64);

}  // namespace kiln
