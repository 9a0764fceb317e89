// Keeping block bindings readable after loops change.
//
// Loop primitives rewrite loop variables into expressions of new loops
// (split: i -> i_0 * 16 + i_1; fuse: i -> i_j_fused // 32). Those expressions
// reach the blocks only through their BlockRealizes' iter values and
// predicates, so that is where they are simplified, knowing each loop's range.
#pragma once

#include <utility>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

// `s` with loop variables replaced (split, fuse) where loop variables can
// be: loop bounds, and the iter values and predicates of BlockRealizes. A
// block's body never names an outer loop's variable (the verifier checks
// it), so the walk stops at blocks instead of rewriting their bodies.
Stmt substitute_loop_vars(const Stmt& s, const std::vector<std::pair<Var, Expr>>& map);

// `s` with the iter values and predicates of its BlockRealizes that name a
// `changed` loop variable simplified under the ranges of the loops around
// them (those inside `s`). The others are kept as they are: simplifying
// every binding below a split loop was a third of a replay's time. Nested
// blocks are left alone: they never see loop variables.
Stmt simplify_bindings(const Stmt& s, const std::vector<Var>& changed);

// `s` with `cond` and-ed into the predicate of every BlockRealize directly
// inside it (not inside another block).
Stmt add_predicate(const Stmt& s, const Expr& cond);

}  // namespace kiln
