// Rules for comparisons. A comparison of integers is decided by the bound of
// the difference of its sides when that bound allows only one answer (with
// shared terms cancelled: x + 1 < x + y is 1 < y). Otherwise a signed scalar
// comparison is put in canonical form, from the linear form of lhs - rhs
// divided by the gcd of its coefficients:
//   expr < c       terms with positive coefficients only (x*2 + y < 7)
//   expr > c       terms with negative coefficients only (x > 3)
//   p < q + c      both (x < y + 4), or p <= q / p < q when that drops c
//   p == q + c     equalities, the first term positive
// So x <= 4 becomes x < 5, 3 < x becomes x > 3 and x*4 < 10 becomes x < 3.
#include <numeric>

#include "core/arith/rewriter.h"

namespace kiln::arith {

using namespace pattern;

namespace {

using i128 = __int128;

struct Sides {
  ExprKind kind;
  const Expr* a;
  const Expr* b;
};

Sides sides(const Expr& e) {
  switch (e.kind()) {
#define X(Name, Sym)                                         \
  case ExprKind::Name: {                                     \
    const auto* n = static_cast<const Name##Node*>(e.get()); \
    return {ExprKind::Name, &n->a, &n->b};                   \
  }
    KILN_FOR_EACH_CMP_EXPR(X)
#undef X
    default: KILN_ICHECK(false) << expr_kind_name(e.kind()) << " is not a comparison";
  }
  return {};
}

// 1 or 0 when the bound of a - b decides the comparison, -1 otherwise.
int decide(ExprKind k, const IntBound& d) {
  auto answer = [](bool always, bool never) { return always ? 1 : (never ? 0 : -1); };
  switch (k) {
    case ExprKind::LT: return answer(d.max < 0, d.min >= 0);
    case ExprKind::LE: return answer(d.max <= 0, d.min > 0);
    case ExprKind::GT: return answer(d.min > 0, d.max <= 0);
    case ExprKind::GE: return answer(d.min >= 0, d.max < 0);
    case ExprKind::EQ: return answer(d.min == 0 && d.max == 0, d.min > 0 || d.max < 0);
    case ExprKind::NE: return answer(d.min > 0 || d.max < 0, d.min == 0 && d.max == 0);
    default: return -1;
  }
}

i128 floordiv128(i128 a, i128 b) {
  i128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The canonical form of `a kind b` (see the header comment); undefined when
// the sides are not linear or a constant would leave the type.
Expr canonical_compare(const Expr& e, ExprKind kind, const Expr& a, const Expr& b) {
  std::optional<LinearForm> la = linear_form(a);
  if (!la) return Expr();
  std::optional<LinearForm> lb = linear_form(b);
  if (!lb) return Expr();
  std::optional<LinearForm> l = linear_combine(*la, *lb, -1);
  if (!l || l->terms.empty()) return Expr();
  DataType t = a.dtype();
  int64_t g = 0;
  for (const auto& tc : l->terms) g = std::gcd(g, tc.second);
  i128 k0 = l->constant;
  LinearForm s{t, l->terms, 0};
  auto scale_terms = [&](int64_t sign) {
    for (auto& tc : s.terms) tc.second = tc.second / g * sign;
  };
  auto imm = [&](i128 v) { return int_imm(t, static_cast<int64_t>(v)); };

  if (kind == ExprKind::EQ || kind == ExprKind::NE) {
    bool is_eq = kind == ExprKind::EQ;
    // s + k0 == 0
    if (k0 % g != 0) return int_imm(DataType::Bool(), is_eq ? 0 : 1);
    i128 m = -k0 / g;
    int64_t sign = s.terms.front().second > 0 ? 1 : -1;
    scale_terms(sign);
    m *= sign;
    if (!fits_type(t, m)) return Expr();
    bool has_neg = false;
    for (const auto& tc : s.terms) has_neg |= tc.second < 0;
    Expr lhs = linear_part_to_expr(s, true);
    Expr rhs = imm(m);
    if (has_neg) {
      rhs = linear_part_to_expr(s, false);
      if (m != 0) rhs = add(rhs, imm(m));
    }
    return is_eq ? eq(lhs, rhs) : ne(lhs, rhs);
  }

  // Everything as s <= m.
  i128 m = 0;
  int64_t sign = 1;
  switch (kind) {
    case ExprKind::LT: m = -k0 - 1; break;
    case ExprKind::LE: m = -k0; break;
    case ExprKind::GT: sign = -1; m = k0 - 1; break;
    case ExprKind::GE: sign = -1; m = k0; break;
    default: return Expr();
  }
  scale_terms(sign);
  m = floordiv128(m, g);
  bool has_pos = false, has_neg = false;
  for (const auto& tc : s.terms) (tc.second > 0 ? has_pos : has_neg) = true;
  if (!has_neg) {
    if (!fits_type(t, m + 1)) return Expr();
    return lt(linear_part_to_expr(s, true), imm(m + 1));
  }
  if (!has_pos) {
    if (!fits_type(t, -m - 1)) return Expr();
    return gt(linear_part_to_expr(s, false), imm(-m - 1));
  }
  Expr p = linear_part_to_expr(s, true);
  Expr q = linear_part_to_expr(s, false);
  if (m == 0) return le(p, q);
  if (m == -1) return lt(p, q);
  if (!fits_type(t, m + 1)) return Expr();
  return lt(p, add(q, imm(m + 1)));
}

}  // namespace

#define X(Name, Sym)                                                   \
  Expr Rewriter::visit_##Name(const Name##Node* op, const Expr& e) {   \
    return visit_binary(op, e, &Rewriter::rewrite_cmp);                \
  }
KILN_FOR_EACH_CMP_EXPR(X)
#undef X

Expr Rewriter::rewrite_cmp(const Expr& e) {
  Sides sd = sides(e);
  const Expr& a = *sd.a;
  const Expr& b = *sd.b;
  DataType ot = a.dtype();
  if (!ot.is_integral()) return Expr();
  PVar x;
  PConst c1, c2;
  Rewrite rw(e);
  if (ot.is_bool() && ot.is_scalar()) {
    if (rw(x == 1, x) || rw(x == 0, !x) || rw(x != 0, x) || rw(x != 1, !x) || rw(1 == x, x) || rw(0 == x, !x) ||
        rw(0 != x, x) || rw(1 != x, !x))
      return rw.result();
  }
  int decided = decide(sd.kind, diff_bound(a, b));
  if (decided >= 0) return const_like(e.dtype(), decided);
  if (!is_int_algebra(ot) || ot.is_vector()) return Expr();
  DataType t = ot;
  if (rw(floordiv(x, c1) < c2, x < c1 * c2,
         [&] { return c1.value() > 0 && fits_type(t, static_cast<i128>(c1.value()) * c2.value()); }) ||
      rw(floordiv(x, c1) > c2, x > c1 * c2 + (c1 - 1), [&] {
        return c1.value() > 0 && fits_type(t, static_cast<i128>(c1.value()) * c2.value() + c1.value() - 1);
      }))
    return rw.result();
  Expr r = canonical_compare(e, sd.kind, a, b);
  if (r.defined() && !structural_equal(r, e)) return r;
  return Expr();
}

}  // namespace kiln::arith
