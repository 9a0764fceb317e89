// Rules for Min and Max. The strongest rule is the bound: min(x, y) is x
// whenever x <= y can be shown, with what x and y share cancelled first
// (min(x + 1, x) is x without knowing x). Constants go right and outwards,
// and a clamp is written max(min(x, hi), lo).
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_Min(const MinNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_min); }
Expr Rewriter::visit_Max(const MaxNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_max); }

Expr Rewriter::rewrite_min(const Expr& e) {
  const auto* n = e.as<MinNode>();
  DataType t = e.dtype();
  PVar x, y, z, w, c;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(min(x, x), x)) return rw.result();
  // Float min does not commute when a NaN is involved: nothing more.
  if (!t.is_integral()) return Expr();
  if (rw(min(c1, x), min(x, c1))) return rw.result();
  IntBound d = diff_bound(n->a, n->b);
  if (d.max <= 0) return n->a;
  if (d.min >= 0) return n->b;
  if (!is_int_algebra(t)) return Expr();
  if (rw(min(min(x, c1), c2), min(x, min(c1, c2))) ||
      rw(min(min(x, c1), y), min(min(x, y), c1)) ||
      rw(min(x, min(y, c1)), min(min(x, y), c1)) ||
      rw(min(x, min(x, y)), min(x, y)) ||
      rw(min(x, min(y, x)), min(y, x)) ||
      rw(min(min(x, y), x), min(x, y)) ||
      rw(min(min(x, y), y), min(x, y)) ||
      rw(min(x, max(x, y)), x) ||
      rw(min(x, max(y, x)), x) ||
      rw(min(max(x, y), x), x) ||
      rw(min(max(y, x), x), x) ||
      rw(min(max(x, c1), c2), max(min(x, c2), c1), [&] { return c1.value() <= c2.value(); }) ||
      rw(min(x + c1, y + c1), min(x, y) + c1) ||
      rw(min(x * c1, y * c1), min(x, y) * c1, [&] { return c1.value() > 0; }) ||
      rw(min(x * c1, y * c1), max(x, y) * c1, [&] { return c1.value() < 0; }) ||
      rw(min(x * c1, c2), min(x, c2 / c1) * c1, [&] { return c1.value() > 0 && c2.value() % c1.value() == 0; }) ||
      rw(min(floordiv(x, c1), floordiv(y, c1)), floordiv(min(x, y), c1), [&] { return c1.value() > 0; }) ||
      rw(min(x + y, x + z), x + min(y, z)) ||
      rw(min(y + x, z + x), min(y, z) + x) ||
      rw(min(x + y, z + x), x + min(y, z)) ||
      rw(min(y + x, x + z), x + min(y, z)) ||
      rw(min(x - y, x - z), x - max(y, z)) ||
      rw(min(y - x, z - x), min(y, z) - x) ||
      rw(min(select(c, x, y), select(c, z, w)), select(c, min(x, z), min(y, w))))
    return rw.result();
  return Expr();
}

Expr Rewriter::rewrite_max(const Expr& e) {
  const auto* n = e.as<MaxNode>();
  DataType t = e.dtype();
  PVar x, y, z, w, c;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(max(x, x), x)) return rw.result();
  if (!t.is_integral()) return Expr();
  if (rw(max(c1, x), max(x, c1))) return rw.result();
  IntBound d = diff_bound(n->a, n->b);
  if (d.min >= 0) return n->a;
  if (d.max <= 0) return n->b;
  if (!is_int_algebra(t)) return Expr();
  if (rw(max(max(x, c1), c2), max(x, max(c1, c2))) ||
      rw(max(max(x, c1), y), max(max(x, y), c1)) ||
      rw(max(x, max(y, c1)), max(max(x, y), c1)) ||
      rw(max(x, max(x, y)), max(x, y)) ||
      rw(max(x, max(y, x)), max(y, x)) ||
      rw(max(max(x, y), x), max(x, y)) ||
      rw(max(max(x, y), y), max(x, y)) ||
      rw(max(x, min(x, y)), x) ||
      rw(max(x, min(y, x)), x) ||
      rw(max(min(x, y), x), x) ||
      rw(max(min(y, x), x), x) ||
      rw(max(x + c1, y + c1), max(x, y) + c1) ||
      rw(max(x * c1, y * c1), max(x, y) * c1, [&] { return c1.value() > 0; }) ||
      rw(max(x * c1, y * c1), min(x, y) * c1, [&] { return c1.value() < 0; }) ||
      rw(max(x * c1, c2), max(x, c2 / c1) * c1, [&] { return c1.value() > 0 && c2.value() % c1.value() == 0; }) ||
      rw(max(floordiv(x, c1), floordiv(y, c1)), floordiv(max(x, y), c1), [&] { return c1.value() > 0; }) ||
      rw(max(x + y, x + z), x + max(y, z)) ||
      rw(max(y + x, z + x), max(y, z) + x) ||
      rw(max(x + y, z + x), x + max(y, z)) ||
      rw(max(y + x, x + z), x + max(y, z)) ||
      rw(max(x - y, x - z), x - min(y, z)) ||
      rw(max(y - x, z - x), max(y, z) - x) ||
      rw(max(select(c, x, y), select(c, z, w)), select(c, max(x, z), max(y, w))))
    return rw.result();
  return Expr();
}

}  // namespace kiln::arith
