// Rules for Cast, Ramp, Broadcast and Let, and for arithmetic on vectors
// built by Broadcast and Ramp: an operation on broadcasts is a broadcast of
// the scalar operation, and adding or scaling a ramp by a broadcast is a
// ramp, so vector index expressions stay in `ramp(base, stride)` form.
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_Cast(const CastNode* op, const Expr& e) {
  Expr v = mutate(op->value);
  if (v.as<IntImmNode>() || v.as<FloatImmNode>()) {
    Expr folded = cast(e.dtype(), v);
    if (folded.as<IntImmNode>() || folded.as<FloatImmNode>()) return folded;
  }
  Expr cur = v.same_as(op->value) ? e : cast(e.dtype(), v);
  if (!cur.as<CastNode>()) return cur;
  Expr r = rewrite_cast(cur);
  return r.defined() ? resimplify(r) : cur;
}

Expr Rewriter::rewrite_cast(const Expr& e) {
  const auto* n = e.as<CastNode>();
  DataType t = e.dtype();
  if (const auto* b = n->value.as<BroadcastNode>()) return broadcast(cast(t.element_of(), b->value), b->lanes);
  // An integer widened and narrowed back is itself.
  if (const auto* inner = n->value.as<CastNode>()) {
    DataType mid = inner->dtype, src = inner->value.dtype();
    if (src == t && t.is_integral() && mid.is_integral() && mid.bits() >= t.bits() && !mid.is_bool())
      return inner->value;
  }
  return Expr();
}

Expr Rewriter::visit_Ramp(const RampNode* op, const Expr& e) {
  Expr base = mutate(op->base);
  Expr stride = mutate(op->stride);
  Expr cur = (base.same_as(op->base) && stride.same_as(op->stride)) ? e : ramp(base, stride, op->lanes);
  Expr r = rewrite_ramp(cur);
  return r.defined() ? resimplify(r) : cur;
}

Expr Rewriter::rewrite_ramp(const Expr& e) {
  const auto* n = e.as<RampNode>();
  if (is_zero(n->stride) && !n->stride.dtype().is_float()) return broadcast(n->base, n->lanes);
  return Expr();
}

Expr Rewriter::visit_Broadcast(const BroadcastNode* op, const Expr& e) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? e : broadcast(v, op->lanes);
}

Expr Rewriter::visit_Let(const LetNode* op, const Expr& e) {
  Expr value = mutate(op->value);
  // Constants and variables are inlined; an unused binding disappears.
  if (value.as<IntImmNode>() || value.as<FloatImmNode>() || value.as<VarNode>())
    return resimplify(substitute(op->body, std::vector<std::pair<Var, Expr>>{{op->var, value}}));
  if (!uses_var(op->body, op->var)) return mutate(op->body);
  // Simplify the body knowing the bound of the value. Memoised results
  // outside this scope stay valid; those inside it do not survive it.
  std::optional<IntBound> saved = bounds_.binding(op->var);
  Memo outer = std::move(memo_);
  memo_ = {};
  bounds_.bind(op->var, bounds_(value));
  Expr body;
  try {
    body = mutate(op->body);
  } catch (...) {
    memo_ = std::move(outer);
    throw;
  }
  if (saved) bounds_.bind(op->var, *saved);
  else bounds_.unbind(op->var);
  memo_ = std::move(outer);
  if (!uses_var(body, op->var)) return body;
  if (value.same_as(op->value) && body.same_as(op->body)) return e;
  return let(op->var, value, body);
}

Expr Rewriter::rewrite_vector(const Expr& e) {
  ExprKind k = e.kind();
  auto [a, b] = binary_operands(e);
  if (!a) return Expr();
  const auto* ba = a->as<BroadcastNode>();
  const auto* bb = b->as<BroadcastNode>();
  if (ba && bb && ba->lanes == bb->lanes) return broadcast(build_binary(k, ba->value, bb->value), ba->lanes);
  // Ramp arithmetic is exact for integers only (wrapping included).
  if (!e.dtype().is_integral()) return Expr();
  PVar x, y, s, s2;
  PLanes l;
  Rewrite rw(e);
  if (rw(ramp(x, s, l) + broadcast(y, l), ramp(x + y, s, l)) ||
      rw(broadcast(y, l) + ramp(x, s, l), ramp(y + x, s, l)) ||
      rw(ramp(x, s, l) + ramp(y, s2, l), ramp(x + y, s + s2, l)) ||
      rw(ramp(x, s, l) - broadcast(y, l), ramp(x - y, s, l)) ||
      rw(broadcast(y, l) - ramp(x, s, l), ramp(y - x, 0 - s, l)) ||
      rw(ramp(x, s, l) - ramp(y, s2, l), ramp(x - y, s - s2, l)) ||
      rw(ramp(x, s, l) * broadcast(y, l), ramp(x * y, s * y, l)) ||
      rw(broadcast(y, l) * ramp(x, s, l), ramp(y * x, y * s, l)))
    return rw.result();
  return Expr();
}

}  // namespace kiln::arith
