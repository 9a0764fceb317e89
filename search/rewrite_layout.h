// Layout rewriting of packed operands (after MetaSchedule's RewriteLayout):
// a parameter's copy left at the function's root (a packed weight that
// compute_location did not move under its consumer's tiles) is laid out in
// the order its consumer's loops read it, one digit per tile:
//
//   for j0, i0, k0, j1, k1, j2:        B_global[k, j] -> B_global[j0, k0, j1, k1, j2]
//     C[i, j] += A[i, k] * B_global[k, j]    (lambda a0, a1: (a1 // 64, a0 // 8, a1 // 16 % 4, a0 % 8, a1 % 16))
//
// so the register tile's vector loads walk the panel contiguously, from one
// tile to the next, never 3 KB apart as the rows of a K x 768 weight are
// (which also maps them onto a few cache sets). The copy's input is a
// parameter and nothing else, so a model compiler that knows the parameter
// to be a constant can run the copy once, at compile time (the weights
// prepacked); until then it runs per call.
//
// It runs in postprocessing because the digits are the drawn tile sizes:
// a mutated trace replays its sketch and is rewritten anew.
#pragma once

#include "tir/schedule/schedule.h"

namespace kiln::search {

// Rewrites each root copy of a parameter whose one consumer is a tiled
// block reading it at one iter var per dimension, each bound to a sum of
// loop variables whose tiles divide the dimension (the perfect tiles of a
// vector or reduction axis), and marks it as the parameter's pack
// (tir/transform/split_prepack.h's kPrepackAnn). A copy into a tensor
// intrinsic's operand layout, already as its consumer reads it, is only
// marked. Others stay as they are.
void rewrite_layouts(Schedule& sch);

}  // namespace kiln::search
