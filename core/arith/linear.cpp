#include "core/arith/linear.h"

#include "core/functor.h"
#include "core/structural.h"

namespace kiln::arith {
namespace {

// True if v is a usable coefficient of type t: inside its range, and not its
// minimum, so that it can always be negated.
bool in_range(DataType t, int64_t v) {
  IntBound r = IntBound::of_type(t);
  return v > r.min && v <= r.max;
}

bool checked_mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool checked_add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

// Adds scale * (linear form of e) to f; false when e cannot be expressed.
bool accumulate(LinearForm& f, const Expr& e, int64_t scale) {
  switch (e.kind()) {
    case ExprKind::IntImm: {
      int64_t v;
      return checked_mul(e.as<IntImmNode>()->value, scale, &v) && checked_add(f.constant, v, &f.constant) &&
             in_range(f.dtype, f.constant);
    }
    case ExprKind::Add: {
      const auto* n = e.as<AddNode>();
      return accumulate(f, n->a, scale) && accumulate(f, n->b, scale);
    }
    case ExprKind::Sub: {
      const auto* n = e.as<SubNode>();
      return accumulate(f, n->a, scale) && accumulate(f, n->b, -scale);
    }
    case ExprKind::Mul: {
      const auto* n = e.as<MulNode>();
      const int64_t* c = as_const_int(n->b);
      const Expr* other = &n->a;
      if (!c) {
        c = as_const_int(n->a);
        other = &n->b;
      }
      if (c) {
        int64_t s;
        if (!checked_mul(scale, *c, &s) || !in_range(f.dtype, s)) return false;
        return accumulate(f, *other, s);
      }
      break;
    }
    default: break;
  }
  for (auto& [t, c] : f.terms) {
    if (structural_equal(t, e)) {
      return checked_add(c, scale, &c) && in_range(f.dtype, c);
    }
  }
  f.terms.emplace_back(e, scale);
  return true;
}

void drop_zero_terms(LinearForm& f) {
  std::erase_if(f.terms, [](const auto& tc) { return tc.second == 0; });
}

Expr scaled(const Expr& t, int64_t c) { return c == 1 ? t : mul(t, int_imm(t.dtype(), c)); }

}  // namespace

std::optional<LinearForm> linear_form(const Expr& e) {
  DataType t = e.dtype();
  if (!t.is_int() || !t.is_scalar()) return std::nullopt;
  LinearForm f;
  f.dtype = t;
  if (!accumulate(f, e, 1)) return std::nullopt;
  drop_zero_terms(f);
  return f;
}

std::optional<LinearForm> linear_combine(const LinearForm& a, const LinearForm& b, int64_t scale) {
  LinearForm f = a;
  int64_t v;
  if (!checked_mul(b.constant, scale, &v) || !checked_add(f.constant, v, &f.constant) || !in_range(f.dtype, f.constant))
    return std::nullopt;
  for (const auto& [t, c] : b.terms) {
    if (!checked_mul(c, scale, &v) || !in_range(f.dtype, v)) return std::nullopt;
    bool merged = false;
    for (auto& [ft, fc] : f.terms) {
      if (structural_equal(ft, t)) {
        if (!checked_add(fc, v, &fc) || !in_range(f.dtype, fc)) return std::nullopt;
        merged = true;
        break;
      }
    }
    if (!merged) f.terms.emplace_back(t, v);
  }
  drop_zero_terms(f);
  return f;
}

Expr linear_part_to_expr(const LinearForm& f, bool positive) {
  Expr acc;
  for (const auto& [t, c] : f.terms) {
    if ((c > 0) != positive) continue;
    Expr piece = scaled(t, positive ? c : -c);
    acc = acc.defined() ? add(acc, piece) : piece;
  }
  return acc.defined() ? acc : int_imm(f.dtype, 0);
}

Expr linear_to_expr(const LinearForm& f) {
  bool any_pos = false, any_neg = false;
  for (const auto& tc : f.terms) (tc.second > 0 ? any_pos : any_neg) = true;
  Expr acc;
  if (any_pos) acc = linear_part_to_expr(f, true);
  else if (f.constant != 0 || !any_neg) acc = int_imm(f.dtype, f.constant);
  if (any_neg) {
    for (const auto& [t, c] : f.terms) {
      if (c > 0) continue;
      Expr piece = scaled(t, -c);
      acc = acc.defined() ? sub(acc, piece) : sub(int_imm(f.dtype, 0), piece);
    }
  }
  if (any_pos && f.constant != 0) acc = add(acc, int_imm(f.dtype, f.constant));
  return acc;
}

IntBound linear_bound(const LinearForm& f, ConstIntBoundAnalyzer& bounds) {
  IntBound r = IntBound::exactly(f.constant);
  for (const auto& [t, c] : f.terms) r = bound_add(r, bound_scale(bounds(t), c));
  return r;
}

size_t linear_cost(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Add: {
      const auto* n = e.as<AddNode>();
      return 1 + linear_cost(n->a) + linear_cost(n->b);
    }
    case ExprKind::Sub: {
      const auto* n = e.as<SubNode>();
      return 1 + linear_cost(n->a) + linear_cost(n->b);
    }
    case ExprKind::Mul: {
      const auto* n = e.as<MulNode>();
      if (as_const_int(n->a) || as_const_int(n->b)) return 1 + linear_cost(n->a) + linear_cost(n->b);
      return 1;
    }
    default: return 1;
  }
}

size_t linear_term_count(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::IntImm: return 0;
    case ExprKind::Add: {
      const auto* n = e.as<AddNode>();
      return linear_term_count(n->a) + linear_term_count(n->b);
    }
    case ExprKind::Sub: {
      const auto* n = e.as<SubNode>();
      return linear_term_count(n->a) + linear_term_count(n->b);
    }
    case ExprKind::Mul: {
      const auto* n = e.as<MulNode>();
      if (as_const_int(n->a) || as_const_int(n->b)) return linear_term_count(n->a) + linear_term_count(n->b);
      return 1;
    }
    default: return 1;
  }
}

std::optional<int64_t> coefficient_of(const Expr& e, const VarNode* v) {
  const auto is_v = [v](const VarNode* u) { return u == v; };
  if (!uses_var(e, is_v)) return 0;
  std::optional<LinearForm> form = linear_form(e);
  if (!form) return std::nullopt;
  int64_t c = 0;
  for (const auto& [term, coef] : form->terms) {
    if (term.get() == v) c += coef;
    else if (uses_var(term, is_v)) return std::nullopt;
  }
  return c;
}

}  // namespace kiln::arith
