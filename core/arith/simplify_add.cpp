// Rules for Add, and the linear-form fallback shared with Sub.
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_Add(const AddNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_add); }

Expr Rewriter::rewrite_add(const Expr& e) {
  const auto* n = e.as<AddNode>();
  DataType t = e.dtype();
  // Constants go right; addition commutes exactly, floats included.
  if ((as_const_float(n->a) && !as_const_float(n->b)) || (as_const_int(n->a) && !as_const_int(n->b)))
    return add(n->b, n->a);
  PVar x, y, z, w, c;
  PConst c1, c2;
  Rewrite rw(e);
  if (!t.is_integral()) return Expr();
  if (rw(x + 0, x)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  auto nonzero = [&] { return c1.value() != 0; };
  if (rw((x + c1) + c2, x + (c1 + c2)) ||
      rw((c1 - x) + c2, (c1 + c2) - x) ||
      rw((x + c1) + y, (x + y) + c1) ||
      rw(x + (y + c1), (x + y) + c1) ||
      rw((c1 - x) + y, (y - x) + c1) ||
      rw(x + (c1 - y), (x - y) + c1) ||
      rw(x + x, x * 2) ||
      rw(x * c1 + x * c2, x * (c1 + c2)) ||
      rw(x * c1 + x, x * (c1 + 1)) ||
      rw(x + x * c1, x * (c1 + 1)) ||
      rw((x - y) + y, x) ||
      rw(y + (x - y), x) ||
      rw(floordiv(x, c1) * c1 + floormod(x, c1), x, nonzero) ||
      rw(floormod(x, c1) + floordiv(x, c1) * c1, x, nonzero) ||
      rw((y + floordiv(x, c1) * c1) + floormod(x, c1), y + x, nonzero) ||
      rw((y + floormod(x, c1)) + floordiv(x, c1) * c1, y + x, nonzero) ||
      rw((x / c1) * c1 + x % c1, x, nonzero) ||
      rw(x % c1 + (x / c1) * c1, x, nonzero) ||
      rw(min(x, y) + max(x, y), x + y) ||
      rw(min(x, y) + max(y, x), x + y) ||
      rw(max(x, y) + min(x, y), x + y) ||
      rw(max(x, y) + min(y, x), x + y) ||
      rw(select(c, x, y) + select(c, z, w), select(c, x + z, y + w)))
    return rw.result();
  return rewrite_linear_sum(e);
}

Expr Rewriter::rewrite_linear_sum(const Expr& e) {
  std::optional<LinearForm> f = linear_form(e);
  if (!f) return Expr();
  // Rebuild when terms merged or cancelled, or when the rebuilt sum is
  // smaller; either measure decreases, so this cannot cycle.
  Expr r = linear_to_expr(*f);
  if (f->terms.size() < linear_term_count(e) || linear_cost(r) < linear_cost(e)) return r;
  return Expr();
}

}  // namespace kiln::arith
