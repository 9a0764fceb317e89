// How much work a function does: its floating-point operations, and the
// statements it executes.
//
// GFLOP/s needs a FLOP count. An operator of ops/ has its formula
// (2·M·N·K for matmul); a fused task of a model (a convolution, its bias,
// its activation) has none, so the count is read off the program: per
// block, the float additions, subtractions, multiplications, divisions,
// minima and maxima of its body, times the iterations of the loops around
// it, and the integer operations on loaded data (an int8 product's
// widened multiply-adds: its operations, counted as FLOPs are). A
// reduction's init is not counted, nor is integer index arithmetic, a
// comparison or a select (padding). For conv2d this is the formula's
// 2·N·K·H·W·C·R·S; a bias add or a ReLU adds one per output element.
//
// A copy (a transpose, a reshape) has no FLOPs and still costs time to
// run, and so does a loop nest over nothing (a tensor of shape
// [2^28, 0]): what bounds a run of the reference interpreter (constant
// folding at import) is its steps, every loop iteration and every store
// or evaluation, inits included.
#pragma once

#include "tir/stmt.h"

namespace kiln {

// The count of an unscheduled or scheduled function in block form. A loop
// of non-constant extent counts as one iteration.
double estimate_flops(const PrimFunc& f);

// The loop iterations and leaf statements the function executes (a loop
// of non-constant extent counts as one iteration). An upper bound: both
// branches of a condition count, and a reduction's init counts at every
// step of the reduction.
double estimate_steps(const PrimFunc& f);

}  // namespace kiln
