// How much code a lowered function becomes: its size in IR nodes, counted
// before LLVM sees it, so that a candidate whose unrolled code would take
// LLVM seconds to compile is refused in microseconds.
//
// Unrolling is where code explodes: `unroll_loops` copies a body per
// iteration, and a loop of kind unroll that it left (extent above its
// limit) reaches LLVM with a full-unroll request, which LLVM honours at any
// size. So a node counts once per copy it will have: every statement and
// expression node once, times the extents of the enclosing unroll loops
// with constant extents. A vectorized loop's body counts once per vector
// of the target's width it spans, as the code generator emits it; a serial
// or parallel loop's body once.
//
// LLVM's time per candidate grows with this count (bench/build_main.cpp
// prints both; docs/measurement.md, "Build time").
#pragma once

#include <cstdint>

#include "tir/stmt.h"

namespace kiln {

// `vector_bits`: the target's vector register width (128, 256, 512).
int64_t code_size(const Stmt& body, int vector_bits = 512);

// The statements of `s`, each once: what passes that copy loop bodies
// (unswitch_loops.h, partition_loops.h) budget.
int64_t stmt_count(const Stmt& s);

}  // namespace kiln
