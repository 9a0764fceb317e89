// Rules for Mul. Constants go right and outwards, and a constant factor is
// distributed over a constant addend, so (x + 1) * 4 is x * 4 + 4: index
// expressions then expose their strides.
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_Mul(const MulNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_mul); }

Expr Rewriter::rewrite_mul(const Expr& e) {
  const auto* n = e.as<MulNode>();
  DataType t = e.dtype();
  if ((as_const_float(n->a) && !as_const_float(n->b)) || (as_const_int(n->a) && !as_const_int(n->b)))
    return mul(n->b, n->a);
  if (t.is_float()) {
    // x * 1.0 is x exactly (-0.0 and NaN included); nothing else is.
    if (const double* f = as_const_float(n->b); f && *f == 1.0) return n->a;
    return Expr();
  }
  if (!t.is_integral()) return Expr();
  PVar x, y;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(x * 0, 0) || rw(x * 1, x)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  auto negatable = [&] { return fits_type(t, -static_cast<__int128>(c2.value())); };
  if (rw(x * -1, 0 - x) ||
      rw((x * c1) * c2, x * (c1 * c2)) ||
      rw((x + c1) * c2, x * c2 + c1 * c2) ||
      rw((c1 - x) * c2, x * (0 - c2) + c1 * c2, negatable) ||
      rw((x * c1) * y, (x * y) * c1) ||
      rw(x * (y * c1), (x * y) * c1))
    return rw.result();
  return Expr();
}

}  // namespace kiln::arith
