// Rules for Sub. A constant subtrahend becomes an added negative constant,
// so constants gather in one place: x - 3 is x + -3.
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_Sub(const SubNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_sub); }

Expr Rewriter::rewrite_sub(const Expr& e) {
  DataType t = e.dtype();
  if (!t.is_integral()) return Expr();
  PVar x, y, z, w, c;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(x - 0, x) || rw(x - x, 0)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  // -c1 exists unless c1 is the type's minimum.
  auto negatable = [&] { return fits_type(t, -static_cast<__int128>(c1.value())); };
  auto nonzero = [&] { return c1.value() != 0; };
  if (rw(x - c1, x + (0 - c1), negatable) ||
      rw((x + y) - x, y) ||
      rw((x + y) - y, x) ||
      rw(x - (x + y), 0 - y) ||
      rw(y - (x + y), 0 - x) ||
      rw((x - y) - x, 0 - y) ||
      rw(x - (x - y), y) ||
      rw((x + c1) - y, (x - y) + c1) ||
      rw(x - (y + c1), (x - y) + (0 - c1), negatable) ||
      rw(c1 - (x + c2), (c1 - c2) - x) ||
      rw(c1 - (c2 - x), x + (c1 - c2)) ||
      rw(x - (c1 - y), (x + y) + (0 - c1), negatable) ||
      rw((c1 - x) - y, c1 - (x + y)) ||
      rw(x * c1 - x * c2, x * (c1 - c2)) ||
      rw(x * c1 - x, x * (c1 - 1)) ||
      rw(x - x * c1, x * (1 - c1)) ||
      rw(x - floordiv(x, c1) * c1, floormod(x, c1), nonzero) ||
      rw(x - (x / c1) * c1, x % c1, nonzero) ||
      rw(x - min(x, y), max(x - y, 0)) ||
      rw(x - min(y, x), max(x - y, 0)) ||
      rw(x - max(x, y), min(x - y, 0)) ||
      rw(x - max(y, x), min(x - y, 0)) ||
      rw(min(x, y) - x, min(y - x, 0)) ||
      rw(min(y, x) - x, min(y - x, 0)) ||
      rw(max(x, y) - x, max(y - x, 0)) ||
      rw(max(y, x) - x, max(y - x, 0)) ||
      rw(select(c, x, y) - select(c, z, w), select(c, x - z, y - w)))
    return rw.result();
  return rewrite_linear_sum(e);
}

}  // namespace kiln::arith
