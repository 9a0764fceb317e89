// Python values as the library's: numbers and axes as expressions.
#pragma once

#include <optional>
#include <vector>

#include "core/expr.h"
#include "targets/target.h"
#include "python/src/bindings.h"

namespace kiln::py {

// An Expr, an IterVar (its variable), or a Python number, which takes the
// type `like` (int32 for an integer, float32 for a float without one).
// Throws TypeError for anything else, and for a float meeting an integer type.
Expr to_expr(pyb::handle h, std::optional<DataType> like);
// A tuple or list of such values, or one.
std::vector<Expr> to_exprs(pyb::handle seq, std::optional<DataType> like);

// A Target, a target string, or None for the host.
Target to_target(pyb::handle h);

}  // namespace kiln::py
