// The typing rule of each expression kind: what a node's dtype must be, given
// its operands.
//
// The constructors in core/expr.h build only well-typed nodes (they insert
// casts and fold constants), so a type error there is a compiler bug. But a
// node can also come from outside: a PrimFunc read back from JSON (a tuning
// database, a workload file, a build request) or rebuilt generically from its
// fields. Every expression node checks this rule in validate(), so an
// ill-typed node read from a file is refused where it is read, and the
// verifier (tir/analysis/verify.h) applies it to every expression of a
// function, to catch a pass that built a node by hand.
#pragma once

#include <optional>
#include <string>

#include "core/expr.h"

namespace kiln {

// What is wrong with the types of `n` and its direct operands, or nullopt.
// Only n itself is checked, not its operands' own operands.
std::optional<std::string> expr_type_error(const ExprNode& n);

}  // namespace kiln
