// Loop unswitching: a condition that does not change inside a serial loop
// is tested once, outside it, and the loop comes in two versions.
//
// A partial register tile's predicate (split's `i0_1 * 6 + i0_3 < 1024`)
// becomes, once the tile's rows are unrolled, `if i0_1 < 170` around the
// last rows' statements, deep inside the reduction loops. With the
// reduction in two nested loops LLVM then keeps every accumulator in
// memory: 6 x 16 on matmul 1024 ran at 0.45 of OpenBLAS with k as 16 x 64
// and at 0.99 with k whole (Zen 3). Unswitched, neither version of the
// nest has a branch inside:
//
//   for k_0 in range(16):                 if i0_1 < 170:
//     for k_1 in range(64):                 for k_0 in range(16):
//       C_local[0] += ...                     for k_1 in range(64):
//       if i0_1 < 170:              ->          C_local[0] += ...
//         C_local[5] += ...                     C_local[5] += ...
//                                           else:
//                                             for k_0 in range(16):
//                                               for k_1 in range(64):
//                                                 C_local[0] += ...
//
// A conjunction's conjuncts move alone: `if a and b` is `if a: if b` (with
// no else), so a tile partial in two dimensions, guarded by `p < 7 and
// q < 7` inside the loops of q, has `p < 7` tested outside them; guards
// that stayed nested are joined again at the end.
//
// A condition moves out of a loop when it reads no buffer, calls nothing,
// divides only by nonzero constants (a guard inside the loop may be what
// keeps a divisor from zero) and names no variable that the loop binds (its own, or one of a loop or
// let inside it), so moving it changes no value. Unswitching doubles the
// loop's code, so a loop of more than kMaxUnswitchStmts statements is left
// as it is, and the versions one loop's unswitching makes hold at most
// twice that together (a partial tile in two dimensions guards its
// statements with several conditions); a body that is already an
// IfThenElse on the condition (an inner loop unswitched on it) costs
// nothing to move out. All loops together add at most the function's own
// statements (or 2 x kMaxUnswitchStmts, if more): loop by loop, a
// candidate with many small partial tiles went from 8,658 IR nodes to 13.6
// million, which took LLVM seconds (docs/measurement.md, "Build time").
#pragma once

#include "tir/stmt.h"

namespace kiln {

inline constexpr int64_t kMaxUnswitchStmts = 512;

PrimFunc unswitch_loops(const PrimFunc& f);

}  // namespace kiln
