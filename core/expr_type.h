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
#include <vector>

#include "core/expr.h"

namespace kiln {

// What is wrong with the types of `n` and its direct operands, or nullopt.
// Only n itself is checked, not its operands' own operands.
std::optional<std::string> expr_type_error(const ExprNode& n);

// The rules themselves, one statement each: the factories (core/expr.h),
// the IR text parser (tir/parser/) and the reference interpreter
// (tir/interp/) ask these rather than restate them, so that what one
// accepts the others accept.

// The type of a binary node of `kind` over operands of type `operands`: a
// comparison is bool of as many lanes, any other the operands' type.
DataType binary_result_type(ExprKind kind, DataType operands);
// Why operands of types a and b cannot be combined by `kind`, naming the
// operator as `op` ("'+'" in the parser, "Add" elsewhere); nullopt when
// they can: one type; booleans for logic; numbers (not booleans) for
// arithmetic; anything but handles for comparisons.
std::optional<std::string> binary_operand_error(ExprKind kind, DataType a, DataType b, const std::string& op);
// Why a ramp from `base` by `stride` over `lanes` lanes is ill-typed: a
// scalar integer base and stride of one type, at least two lanes.
std::optional<std::string> ramp_error(DataType base, DataType stride, int64_t lanes);
// A vector of `lanes` of the scalar type `t` (a ramp's, a broadcast's).
DataType vector_of(DataType t, int64_t lanes);
// What a load of `element`s at `indices` gives: as many lanes as the widest
// index.
DataType load_type(DataType element, const std::vector<Expr>& indices);

}  // namespace kiln
