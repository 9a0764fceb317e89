// Statement-level simplification.
//
// Simplifies every expression of a statement with what its scope knows: each
// For loop variable lies in [min, min + extent), each Block iteration
// variable in its domain, each LetStmt variable in the bound of its value.
// Inside the branches of an IfThenElse, a condition that compares a variable
// with a constant (`i < 8`, and conjunctions of such) narrows that variable's
// bound. With that knowledge it also
//  - removes an IfThenElse whose condition is provably true or false,
//    keeping the branch that runs;
//  - removes loops of extent 0 (and loops whose body became a no-op);
//  - replaces a loop of extent 1 by its body with the loop variable replaced
//    by the loop's min (thread-bound loops stay: they shape the launch).
// Blocks keep their structure; only the expressions in them change. The very
// same node comes back when nothing could be simplified.
//
//   for i in range(4):                       for i in range(4):
//     for j in range(8):               ->      for j in range(8):
//       A[(i*8 + j) // 8 * 8                      A[i * 8 + j] = 0
//         + (i*8 + j) % 8] = 0
#pragma once

#include "tir/stmt.h"

namespace kiln {

Stmt simplify_stmt(const Stmt& s);
PrimFunc simplify(const PrimFunc& f);

}  // namespace kiln
