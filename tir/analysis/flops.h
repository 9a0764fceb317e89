// How many floating-point operations a function performs.
//
// GFLOP/s needs a FLOP count. An operator of ops/ has its formula
// (2·M·N·K for matmul); a fused task of a model (a convolution, its bias,
// its activation) has none, so the count is read off the program: per
// block, the float additions, subtractions, multiplications, divisions,
// minima and maxima of its body, times the iterations of the loops around
// it. A reduction's init is not counted, nor is integer index arithmetic,
// a comparison or a select (padding). For conv2d this is the formula's
// 2·N·K·H·W·C·R·S; a bias add or a ReLU adds one per output element.
#pragma once

#include "tir/stmt.h"

namespace kiln {

// The count of an unscheduled or scheduled function in block form. A loop
// of non-constant extent counts as one iteration.
double estimate_flops(const PrimFunc& f);

}  // namespace kiln
