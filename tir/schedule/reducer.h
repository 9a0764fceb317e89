// Recognising a reduction block's update: `buf[idx] = buf[idx] <op> value`
// with a commutative, associative combiner whose identity is known.
//
// A reduction may be regrouped (rfactor computes partial results and
// combines them later) only when its combiner is one of these; anything else
// (`buf[idx] = buf[idx] - x`, a select) keeps its order.
#pragma once

#include <optional>

#include "tir/stmt.h"

namespace kiln {

struct Reducer {
  ExprKind op;  // Add, Mul, Min or Max
  Expr identity;
  Expr combine(Expr acc, Expr value) const { return make_binary(op, std::move(acc), std::move(value)); }
};

// The update of a block body `store`: its combiner and the value it folds in
// (the operand that is not the accumulator load). The value may not read the
// accumulator's buffer.
struct ReductionUpdate {
  Reducer reducer;
  Expr value;
};

// The reducer of `op` for type `t`, or nothing for other operators.
std::optional<Reducer> reducer_of(ExprKind op, DataType t);

// `store` as an update, or nothing when it is not one.
std::optional<ReductionUpdate> match_reduction_update(const BufferStoreNode* store);

}  // namespace kiln
