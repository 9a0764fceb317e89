// Unrolled loops to straight-line code.
//
// A loop of kind unroll with a constant extent of at most `max_extent` is
// replaced by that many copies of its body, each with the loop variable
// replaced by its value; the copies then simplify to constant offsets. Longer
// or non-constant unroll loops stay loops, and the code generator treats the
// kind as a hint.
//
// Inside a nest annotated with an auto-unroll step (the search's
// `pragma_auto_unroll_max_step`), a serial loop over straight-line code
// unrolls when its copies stay within the step. So does a short loop
// anywhere (at most kShortLoopTrips iterations, kShortLoopStmts statements
// in all): LLVM would unroll it anyway, but only after its loop passes
// have run over it, and a nest holding hundreds of them (a scalar tile's
// 2-lane loops, 210 in one candidate) kept IndVarSimplify busy for 40 s.
// Here it costs a copy of a few statements.
#pragma once

#include "tir/stmt.h"

namespace kiln {

inline constexpr const char* kAutoUnrollMaxStep = "pragma_auto_unroll_max_step";
inline constexpr int64_t kShortLoopTrips = 4;
inline constexpr int64_t kShortLoopStmts = 16;

PrimFunc unroll_loops(const PrimFunc& f, int64_t max_extent = 64);

// Only the short loops: what lowering runs after vectorize_loops, on the
// vectorized loops that could not be vector code and stayed serial (a
// scalar cache's 2-lane loops). A longer one stays a loop: LLVM's loop
// vectoriser, which sees it, makes vector code of most (a pool's 16
// channels), which straight-line copies would have hidden from it.
PrimFunc unroll_short_loops(const PrimFunc& f);

}  // namespace kiln
