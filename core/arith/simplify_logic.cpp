// Rules for And, Or and Not. Besides constants and repeated operands, two
// comparisons of one expression with constants merge into one (or decide the
// whole condition): x < 4 && x < 8 is x < 4, x < 3 || x > 2 is true for
// integers. A negated comparison of integers becomes the opposite comparison.
#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

Expr Rewriter::visit_And(const AndNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_and); }
Expr Rewriter::visit_Or(const OrNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_or); }

Expr Rewriter::visit_Not(const NotNode* op, const Expr& e) {
  Expr a = mutate(op->a);
  if (as_const_int(a)) return logical_not(a);
  Expr cur = a.same_as(op->a) ? e : logical_not(a);
  Expr r = rewrite_not(cur);
  return r.defined() ? resimplify(r) : cur;
}

Expr Rewriter::rewrite_and(const Expr& e) {
  PVar x, y;
  PConst c1, c2;
  Rewrite rw(e);
  auto integral = [&] { return x.value().dtype().is_integral(); };
  if (rw(x && 1, x) || rw(1 && x, x) || rw(x && 0, 0) || rw(0 && x, 0) ||
      rw(x && x, x) ||
      rw(x && !x, 0) ||
      rw(!x && x, 0) ||
      rw(x && (x || y), x) ||
      rw(x && (y || x), x) ||
      rw((x || y) && x, x) ||
      rw((y || x) && x, x) ||
      rw(x && (x && y), x && y) ||
      rw((x && y) && x, x && y) ||
      rw((x && y) && y, x && y) ||
      rw(x < c1 && x < c2, x < min(c1, c2)) ||
      rw(x > c1 && x > c2, x > max(c1, c2)) ||
      rw(x < c1 && x > c2, 0, [&] { return integral() && c1.value() <= static_cast<__int128>(c2.value()) + 1; }) ||
      rw(x > c2 && x < c1, 0, [&] { return integral() && c1.value() <= static_cast<__int128>(c2.value()) + 1; }) ||
      rw(x == c1 && x == c2, 0, [&] { return c1.value() != c2.value(); }) ||
      rw(x == c1 && x != c2, x == c1, [&] { return c1.value() != c2.value(); }) ||
      rw(x != c2 && x == c1, x == c1, [&] { return c1.value() != c2.value(); }) ||
      rw(x < y && y < x, 0) ||
      rw(x <= y && y <= x, x == y, integral))
    return rw.result();
  return Expr();
}

Expr Rewriter::rewrite_or(const Expr& e) {
  PVar x, y;
  PConst c1, c2;
  Rewrite rw(e);
  auto integral = [&] { return x.value().dtype().is_integral(); };
  if (rw(x || 1, 1) || rw(1 || x, 1) || rw(x || 0, x) || rw(0 || x, x) ||
      rw(x || x, x) ||
      rw(x || !x, 1) ||
      rw(!x || x, 1) ||
      rw(x || (x && y), x) ||
      rw(x || (y && x), x) ||
      rw((x && y) || x, x) ||
      rw((y && x) || x, x) ||
      rw(x || (x || y), x || y) ||
      rw((x || y) || x, x || y) ||
      rw((x || y) || y, x || y) ||
      rw(x < c1 || x < c2, x < max(c1, c2)) ||
      rw(x > c1 || x > c2, x > min(c1, c2)) ||
      rw(x < c1 || x > c2, 1, [&] { return integral() && c2.value() < c1.value(); }) ||
      rw(x > c2 || x < c1, 1, [&] { return integral() && c2.value() < c1.value(); }) ||
      rw(x != c1 || x != c2, 1, [&] { return c1.value() != c2.value(); }) ||
      rw(x != c1 || x == c2, x != c1, [&] { return c1.value() != c2.value(); }) ||
      rw(x == c2 || x != c1, x != c1, [&] { return c1.value() != c2.value(); }) ||
      rw(x < y || y < x, x != y, integral))
    return rw.result();
  return Expr();
}

Expr Rewriter::rewrite_not(const Expr& e) {
  PVar x, y;
  Rewrite rw(e);
  // For floats !(x < y) is not y <= x: both are false when one is NaN.
  auto integral = [&] { return x.value().dtype().is_integral(); };
  if (rw(!!x, x) ||
      rw(!(x == y), x != y) ||
      rw(!(x != y), x == y) ||
      rw(!(x < y), y <= x, integral) ||
      rw(!(x <= y), y < x, integral) ||
      rw(!(x > y), x <= y, integral) ||
      rw(!(x >= y), x < y, integral))
    return rw.result();
  return Expr();
}

}  // namespace kiln::arith
