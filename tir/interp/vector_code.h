// Code for vector-typed expressions (lowered form: Ramp, Broadcast and what
// is computed from them). Each lane is computed by the same scalar semantics
// as the scalar paths (semantics.h), one lane at a time: the vector path
// favours plainness over speed, since vectors only appear after lowering.
#pragma once

#include <vector>

#include "tir/interp/program.h"

namespace kiln::interp {

ExprPtr vector_var(DataType t, int first_slot);
// Binary arithmetic, comparisons, And and Or; both operands of type `operand`.
ExprPtr vector_binary(ExprKind k, DataType result, ExprPtr a, ExprPtr b);
ExprPtr vector_not(ExprPtr a);
// cond has one lane or as many as the values.
ExprPtr vector_select(ExprPtr cond, ExprPtr t, ExprPtr f);
ExprPtr vector_cast(DataType to, ExprPtr v);
ExprPtr vector_ramp(DataType t, ExprPtr base, ExprPtr stride);
ExprPtr vector_broadcast(DataType t, ExprPtr v);
ExprPtr vector_call(DataType t, Intrinsic op, std::vector<ExprPtr> args);

}  // namespace kiln::interp
