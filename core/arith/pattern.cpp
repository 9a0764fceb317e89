#include "core/arith/pattern.h"

namespace kiln::arith::pattern {

Expr make_int_like(DataType t, int64_t v) {
  DataType e = t.element_of();
  Expr s = e.is_float() ? float_imm(e, static_cast<double>(v)) : int_imm(e, v);
  return t.is_vector() ? broadcast(s, t.lanes()) : s;
}

Expr build_binary(ExprKind k, Expr a, Expr b) {
  switch (k) {
    case ExprKind::Add: return add(std::move(a), std::move(b));
    case ExprKind::Sub: return sub(std::move(a), std::move(b));
    case ExprKind::Mul: return mul(std::move(a), std::move(b));
    case ExprKind::Div: return div(std::move(a), std::move(b));
    case ExprKind::Mod: return mod(std::move(a), std::move(b));
    case ExprKind::FloorDiv: return floordiv(std::move(a), std::move(b));
    case ExprKind::FloorMod: return floormod(std::move(a), std::move(b));
    case ExprKind::Min: return min(std::move(a), std::move(b));
    case ExprKind::Max: return max(std::move(a), std::move(b));
    case ExprKind::EQ: return eq(std::move(a), std::move(b));
    case ExprKind::NE: return ne(std::move(a), std::move(b));
    case ExprKind::LT: return lt(std::move(a), std::move(b));
    case ExprKind::LE: return le(std::move(a), std::move(b));
    case ExprKind::GT: return gt(std::move(a), std::move(b));
    case ExprKind::GE: return ge(std::move(a), std::move(b));
    case ExprKind::And: return logical_and(std::move(a), std::move(b));
    case ExprKind::Or: return logical_or(std::move(a), std::move(b));
    default: KILN_ICHECK(false) << expr_kind_name(k) << " is not a binary operator";
  }
  return Expr();
}

}  // namespace kiln::arith::pattern
