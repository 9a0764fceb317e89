// Rules for Div, Mod (truncating) and FloorDiv, FloorMod (flooring).
//
// Truncating division of a non-negative dividend by a positive divisor is
// floor division, and is rewritten as such: index arithmetic then has one
// form, and the floor rules (which hold for every dividend) apply. The
// floor rules split a dividend into the part that is a multiple of the
// divisor and the rest, using bounds to drop what stays within one period:
//   floordiv(x*8 + y, 8)  ->  x + floordiv(y, 8)
//   floordiv(x*4 + y, 8)  ->  floordiv(x, 2)        when 0 <= y < 4
//   floormod(x, 8)        ->  x                     when 0 <= x < 8
#include "core/arith/rewriter.h"
#include "core/int_div.h"

namespace kiln::arith {

using namespace pattern;

namespace {

// The part of a linear form that is a multiple of c (divided by c), and the
// rest. False when nothing is a multiple (no progress to make).
bool split_multiples(const LinearForm& f, int64_t c, LinearForm& quotient, LinearForm& rest) {
  quotient = LinearForm{f.dtype, {}, floordiv_i(f.constant, c)};
  rest = LinearForm{f.dtype, {}, f.constant - quotient.constant * c};
  for (const auto& [t, k] : f.terms) {
    if (k % c == 0) quotient.terms.emplace_back(t, k / c);
    else rest.terms.emplace_back(t, k);
  }
  return !quotient.terms.empty() || quotient.constant != 0;
}

}  // namespace

Expr Rewriter::visit_Div(const DivNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_div); }
Expr Rewriter::visit_Mod(const ModNode* op, const Expr& e) { return visit_binary(op, e, &Rewriter::rewrite_mod); }
Expr Rewriter::visit_FloorDiv(const FloorDivNode* op, const Expr& e) {
  return visit_binary(op, e, &Rewriter::rewrite_floordiv);
}
Expr Rewriter::visit_FloorMod(const FloorModNode* op, const Expr& e) {
  return visit_binary(op, e, &Rewriter::rewrite_floormod);
}

Expr Rewriter::rewrite_div(const Expr& e) {
  const auto* n = e.as<DivNode>();
  DataType t = e.dtype();
  if (t.is_float()) {
    if (const double* f = as_const_float(n->b); f && *f == 1.0) return n->a;
    return Expr();
  }
  if (!t.is_integral()) return Expr();
  PVar x;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(x / 1, x)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  IntBound ba = bound(n->a), bb = bound(n->b);
  if (ba.min >= 0 && bb.min > 0) return floordiv(n->a, n->b);
  if (rw(x / -1, 0 - x) ||
      rw((x * c1) / c2, x * (c1 / c2), [&] { return c2.value() != 0 && c1.value() % c2.value() == 0; }))
    return rw.result();
  if (const int64_t* c = as_const_int(n->b); c && *c != IntBound::kNegInf) {
    int64_t m = *c < 0 ? -*c : *c;
    if (ba.min > -m && ba.max < m) return const_like(t, 0);
  }
  return Expr();
}

Expr Rewriter::rewrite_mod(const Expr& e) {
  const auto* n = e.as<ModNode>();
  DataType t = e.dtype();
  if (!t.is_integral()) return Expr();
  PVar x;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(x % 1, 0)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  if (rw(x % -1, 0)) return rw.result();
  IntBound ba = bound(n->a), bb = bound(n->b);
  if (ba.min >= 0 && bb.min > 0) return floormod(n->a, n->b);
  if (const int64_t* c = as_const_int(n->b); c && *c != 0 && *c != IntBound::kNegInf) {
    int64_t m = *c < 0 ? -*c : *c;
    // The remainder's sign follows the dividend's, never the divisor's.
    if (ba.min >= 0) return floormod(n->a, int_imm(t, m));
    if (ba.min > -m && ba.max < m) return n->a;
  }
  if (rw((x * c1) % c2, 0, [&] { return c2.value() != 0 && c1.value() % c2.value() == 0; })) return rw.result();
  return Expr();
}

Expr Rewriter::rewrite_floordiv(const Expr& e) {
  const auto* n = e.as<FloorDivNode>();
  DataType t = e.dtype();
  if (!t.is_integral()) return Expr();
  PVar x, y;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(floordiv(x, 1), x)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  if (rw(floordiv(x, -1), 0 - x)) return rw.result();
  const int64_t* cp = as_const_int(n->b);
  if (!cp || *cp <= 0) return Expr();
  const int64_t c = *cp;
  // Within one period: a constant.
  IntBound ba = bound(n->a);
  if (ba.has_min() && ba.has_max() && floordiv_i(ba.min, c) == floordiv_i(ba.max, c))
    return const_like(t, floordiv_i(ba.min, c));
  auto divides = [&] { return c1.value() % c2.value() == 0; };
  // c2 = c1 * k with 0 <= y < c1: y never carries into the quotient.
  auto below_stride = [&] {
    if (c1.value() <= 0 || c2.value() % c1.value() != 0) return false;
    IntBound by = bound(y.value());
    return by.min >= 0 && by.max < c1.value();
  };
  if (rw(floordiv(x * c1, c2), x * (c1 / c2), divides) ||
      rw(floordiv(x * c1, c2), floordiv(x, c2 / c1), [&] { return c1.value() > 0 && c2.value() % c1.value() == 0; }) ||
      rw(floordiv(x * c1 + y, c2), x * (c1 / c2) + floordiv(y, c2), divides) ||
      rw(floordiv(y + x * c1, c2), floordiv(y, c2) + x * (c1 / c2), divides) ||
      rw(floordiv(x + c1, c2), floordiv(x, c2) + c1 / c2, divides) ||
      rw(floordiv(x * c1 + y, c2), floordiv(x, c2 / c1), below_stride) ||
      rw(floordiv(y + x * c1, c2), floordiv(x, c2 / c1), below_stride) ||
      rw(floordiv(floordiv(x, c1), c2), floordiv(x, c1 * c2),
         [&] { return c1.value() > 0 && fits_type(t, static_cast<__int128>(c1.value()) * c2.value()); }))
    return rw.result();
  // Multiples of c anywhere in a sum leave the division.
  if (std::optional<LinearForm> f = linear_form(n->a)) {
    LinearForm q, r;
    if (split_multiples(*f, c, q, r)) return add(linear_to_expr(q), floordiv(linear_to_expr(r), n->b));
  }
  return Expr();
}

Expr Rewriter::rewrite_floormod(const Expr& e) {
  const auto* n = e.as<FloorModNode>();
  DataType t = e.dtype();
  if (!t.is_integral()) return Expr();
  PVar x, y;
  PConst c1, c2;
  Rewrite rw(e);
  if (rw(floormod(x, 1), 0)) return rw.result();
  if (!is_int_algebra(t)) return Expr();
  if (rw(floormod(x, -1), 0)) return rw.result();
  const int64_t* cp = as_const_int(n->b);
  if (!cp || *cp <= 0) return Expr();
  const int64_t c = *cp;
  // Within one period: a shift of the dividend.
  IntBound ba = bound(n->a);
  if (ba.has_min() && ba.has_max() && floordiv_i(ba.min, c) == floordiv_i(ba.max, c)) {
    int64_t k = floordiv_i(ba.min, c);
    return k == 0 ? n->a : sub(n->a, int_imm(t, k * c));
  }
  auto divides = [&] { return c1.value() % c2.value() == 0; };
  auto divides_modulus = [&] { return c1.value() > 0 && c2.value() % c1.value() == 0; };
  auto below_stride = [&] {
    if (!divides_modulus()) return false;
    IntBound by = bound(y.value());
    return by.min >= 0 && by.max < c1.value();
  };
  if (rw(floormod(x * c1, c2), 0, divides) ||
      rw(floormod(x * c1 + y, c2), floormod(y, c2), divides) ||
      rw(floormod(y + x * c1, c2), floormod(y, c2), divides) ||
      rw(floormod(x + c1, c2), floormod(x + floormod(c1, c2), c2),
         [&] { return c1.value() < 0 || c1.value() >= c2.value(); }) ||
      rw(floormod(x * c1, c2), floormod(x, c2 / c1) * c1, divides_modulus) ||
      rw(floormod(x * c1 + y, c2), floormod(x, c2 / c1) * c1 + y, below_stride) ||
      rw(floormod(y + x * c1, c2), floormod(x, c2 / c1) * c1 + y, below_stride) ||
      rw(floormod(floormod(x, c1), c2), floormod(x, c2), [&] { return c1.value() > 0 && c1.value() % c2.value() == 0; }))
    return rw.result();
  if (std::optional<LinearForm> f = linear_form(n->a)) {
    LinearForm q, r;
    if (split_multiples(*f, c, q, r)) return floormod(linear_to_expr(r), n->b);
  }
  return Expr();
}

}  // namespace kiln::arith
