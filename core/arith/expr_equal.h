// Exact equality of expressions, as the simplifier needs it.
//
// structural_equal (core/structural.h) treats variables up to renaming, so
// x + 1 and y + 1 compare equal there. A rewrite rule that matches `x - x`
// must not accept `x - y`, so the simplifier compares with identity: the
// same variable and buffer objects, equal immediates (floats by bit pattern,
// so 0.0 and -0.0 differ), equal everything else.
#pragma once

#include <cstddef>

#include "core/expr.h"

namespace kiln::arith {

bool expr_equal(const Expr& a, const Expr& b);

// The number of expression nodes in e (a cost measure for rewriting).
size_t expr_size(const Expr& e);

}  // namespace kiln::arith
