// Rules for Select: constant or repeated conditions, equal branches, and
// selects that are really min/max or share an addend.
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_Select(const SelectNode* op, const Expr& e) {
  Expr c = mutate(op->cond);
  if (const int64_t* v = as_const_int(c)) return mutate(*v ? op->true_value : op->false_value);
  Expr t = mutate(op->true_value);
  Expr f = mutate(op->false_value);
  Expr cur = (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) ? e : select(c, t, f);
  Expr r = rewrite_select(cur);
  return r.defined() ? resimplify(r) : cur;
}

Expr Rewriter::rewrite_select(const Expr& e) {
  DataType t = e.dtype();
  PVar c, x, y, z;
  PConst c1, c2;
  PLanes l;
  Rewrite rw(e);
  if (rw(select(c, x, x), x) ||
      rw(select(broadcast(1, l), x, y), x) ||
      rw(select(broadcast(0, l), x, y), y) ||
      rw(select(!c, x, y), select(c, y, x)) ||
      rw(select(c, select(c, x, y), z), select(c, x, z)) ||
      rw(select(c, x, select(c, y, z)), select(c, x, z)))
    return rw.result();
  if (t.is_bool() && (rw(select(c, 1, 0), c) || rw(select(c, 0, 1), !c))) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  // Conditions arrive canonical: x > y became y < x, so only < and <= (and
  // comparisons with a constant, which keep >) need rules.
  if (rw(select(x < y, x, y), min(x, y)) ||
      rw(select(x < y, y, x), max(x, y)) ||
      rw(select(x <= y, x, y), min(x, y)) ||
      rw(select(x <= y, y, x), max(x, y)) ||
      rw(select(x < c1, x, c2), min(x, c2), [&] { return c1.value() == static_cast<__int128>(c2.value()) + 1; }) ||
      rw(select(x < c1, c2, x), max(x, c2), [&] { return c2.value() == static_cast<__int128>(c1.value()) - 1; }) ||
      rw(select(x > c1, x, c2), max(x, c2), [&] { return c2.value() == static_cast<__int128>(c1.value()) + 1; }) ||
      rw(select(x > c1, c2, x), min(x, c2), [&] { return c2.value() == static_cast<__int128>(c1.value()) + 1; }) ||
      rw(select(c, x + y, x + z), x + select(c, y, z)) ||
      rw(select(c, y + x, z + x), select(c, y, z) + x) ||
      rw(select(c, x - y, x - z), x - select(c, y, z)) ||
      rw(select(c, y - x, z - x), select(c, y, z) - x))
    return rw.result();
  return Expr();
}

}  // namespace kiln::arith
