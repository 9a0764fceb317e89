// Builds IR nodes exactly as the text spells them. The constructors of
// core/expr.h and tir/stmt.h fold constants and insert casts (select(True,
// a, b) is a, cast(float32, 1) is 1.0f, seq() drops no-ops, for_loop() casts
// its bounds to the loop variable's type), which is right for passes but
// would make reading lossy: `T.Cast("float32", 1)` must read back as a Cast.
// The parser checks types itself before it builds, so every node here is
// well-typed.
#pragma once

#include <memory>
#include <utility>

#include "core/expr.h"
#include "tir/stmt.h"

namespace kiln::parser {

// A fresh expression node of type t; the caller fills its fields.
template <typename N>
std::shared_ptr<N> new_expr(DataType t) {
  auto n = std::make_shared<N>();
  n->dtype = t;
  return n;
}

// Wraps a filled node, running its invariant check (Object::validate).
template <typename N>
Expr finish(std::shared_ptr<N> n) {
  n->validate();
  return Expr(ObjectPtr(std::move(n)));
}

template <typename N>
Stmt finish_stmt(std::shared_ptr<N> n) {
  n->validate();
  return Stmt(ObjectPtr(std::move(n)));
}

}  // namespace kiln::parser
