// Loop partitioning: a serial loop whose body selects on a condition
// linear in the loop's variable runs in up to three pieces, the middle
// one where the condition holds for every value of the loops inside it,
// so that simplify folds it away there.
//
// A window reading a padded input through selects (a depthwise
// convolution whose padding is inlined) guards each load with whether its
// tap lies inside the input; of a 56² output's 28 column tiles, only the
// first reads past the border. Partitioned, the other 27 load without a
// select or clamp:
//
//   for q in range(28):                       for q in range(0, 1):
//     acc += select(q > 0, x[max(2q-1, 0)], 0)   acc += select(q > 0, x[max(2q-1, 0)], 0)
//                                      ->     for q in range(1, 28):
//                                               acc += x[2q - 1]
//
// A condition counts when it is a comparison of integers (alone or a
// conjunct of an `and`), in a Select or an IfThenElse in the loop's body,
// whose difference is linear in the loop's variable and bounded over the
// loops inside the loop (never a variable bound outside it, such as a
// parallel loop's): the pieces are where every such condition holds
// throughout, and what lies before and after. Partitioning copies the
// body, so a loop of more than kMaxPartitionStmts statements stays whole,
// and all loops together add at most the function's own statements (or
// 2 x kMaxPartitionStmts, if more): loop unswitching's budget
// (unswitch_loops.h), for the same reason (build time).
#pragma once

#include "tir/stmt.h"

namespace kiln {

inline constexpr int64_t kMaxPartitionStmts = 512;

PrimFunc partition_loops(const PrimFunc& f);

}  // namespace kiln
