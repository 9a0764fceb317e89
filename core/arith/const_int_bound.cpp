#include "core/arith/const_int_bound.h"

#include <algorithm>
#include <initializer_list>

namespace kiln::arith {
namespace {

// Bounds are computed on 128-bit integers; kInf stands for infinity and
// every result is clamped to [-kInf, kInf], far from 128-bit overflow.
using i128 = __int128;
constexpr i128 kInf = i128(1) << 100;

struct Iv {
  i128 lo, hi;
};

i128 clamp(i128 v) { return v > kInf ? kInf : (v < -kInf ? -kInf : v); }
i128 imin(i128 a, i128 b) { return a < b ? a : b; }
i128 imax(i128 a, i128 b) { return a > b ? a : b; }
bool is_inf(i128 v) { return v == kInf || v == -kInf; }

i128 widen(int64_t v) {
  if (v == IntBound::kNegInf) return -kInf;
  if (v == IntBound::kPosInf) return kInf;
  return v;
}
Iv widen(const IntBound& b) { return {widen(b.min), widen(b.max)}; }

int64_t narrow(i128 v) {
  if (v <= IntBound::kNegInf) return IntBound::kNegInf;
  if (v >= IntBound::kPosInf) return IntBound::kPosInf;
  return static_cast<int64_t>(v);
}
IntBound narrow(const Iv& v) { return {narrow(v.lo), narrow(v.hi)}; }

Iv single(i128 v) { return {v, v}; }

Iv add(const Iv& a, const Iv& b) {
  i128 lo = (a.lo == -kInf || b.lo == -kInf) ? -kInf : clamp(a.lo + b.lo);
  i128 hi = (a.hi == kInf || b.hi == kInf) ? kInf : clamp(a.hi + b.hi);
  return {lo, hi};
}
Iv neg(const Iv& a) { return {-a.hi, -a.lo}; }

i128 mul1(i128 x, i128 y) {
  if (x == 0 || y == 0) return 0;
  bool negative = (x < 0) != (y < 0);
  if (is_inf(x) || is_inf(y)) return negative ? -kInf : kInf;
  i128 r;
  if (__builtin_mul_overflow(x, y, &r)) return negative ? -kInf : kInf;
  return clamp(r);
}

Iv corners(std::initializer_list<i128> vs) {
  Iv r{kInf, -kInf};
  for (i128 v : vs) {
    r.lo = imin(r.lo, v);
    r.hi = imax(r.hi, v);
  }
  return r;
}

Iv mul(const Iv& a, const Iv& b) {
  return corners({mul1(a.lo, b.lo), mul1(a.lo, b.hi), mul1(a.hi, b.lo), mul1(a.hi, b.hi)});
}

i128 floordiv1(i128 x, i128 y) {
  i128 q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

// x / y for y != 0, x and y possibly infinite (limits of large values).
i128 div1(i128 x, i128 y, bool floor) {
  bool negative = (x < 0) != (y < 0);
  if (is_inf(x) && is_inf(y)) return negative ? -1 : 1;
  if (is_inf(x)) return negative ? -kInf : kInf;
  if (is_inf(y)) return (floor && x != 0 && negative) ? -1 : 0;
  return clamp(floor ? floordiv1(x, y) : x / y);
}

// Quotient bounds; nullopt when the divisor can only be zero.
std::optional<Iv> div(const Iv& a, const Iv& b, bool floor) {
  std::optional<Iv> r;
  auto part = [&](i128 blo, i128 bhi) {
    Iv q = corners({div1(a.lo, blo, floor), div1(a.lo, bhi, floor), div1(a.hi, blo, floor), div1(a.hi, bhi, floor)});
    r = r ? Iv{imin(r->lo, q.lo), imax(r->hi, q.hi)} : q;
  };
  if (b.lo <= -1) part(b.lo, imin(b.hi, -1));
  if (b.hi >= 1) part(imax(b.lo, 1), b.hi);
  return r;
}

bool is_single(const Iv& v) { return v.lo == v.hi && !is_inf(v.lo); }
bool finite(const Iv& v) { return !is_inf(v.lo) && !is_inf(v.hi); }

// Truncated remainder: takes the sign of a, magnitude below |b|.
std::optional<Iv> mod(const Iv& a, const Iv& b) {
  if (b.lo == 0 && b.hi == 0) return std::nullopt;
  if (is_single(b) && finite(a)) {
    i128 c = b.lo;
    if ((a.lo >= 0 || a.hi <= 0) && a.lo / c == a.hi / c) return Iv{a.lo % c, a.hi % c};
  }
  i128 m = imax(-b.lo, b.hi);
  if (!is_inf(m)) m -= 1;
  if (a.lo >= 0) return Iv{0, imin(a.hi, m)};
  if (a.hi <= 0) return Iv{imax(a.lo, -m), 0};
  return Iv{imax(a.lo, -m), imin(a.hi, m)};
}

// Floored remainder: takes the sign of b.
std::optional<Iv> floormod(const Iv& a, const Iv& b) {
  if (b.lo == 0 && b.hi == 0) return std::nullopt;
  if (is_single(b) && finite(a)) {
    i128 c = b.lo;
    if (floordiv1(a.lo, c) == floordiv1(a.hi, c)) return Iv{a.lo - floordiv1(a.lo, c) * c, a.hi - floordiv1(a.hi, c) * c};
  }
  if (b.lo > 0) {
    i128 m = is_inf(b.hi) ? kInf : b.hi - 1;
    return Iv{0, a.lo >= 0 ? imin(a.hi, m) : m};
  }
  if (b.hi < 0) {
    i128 m = is_inf(b.lo) ? -kInf : b.lo + 1;
    return Iv{a.hi <= 0 ? imax(a.lo, m) : m, 0};
  }
  return Iv{is_inf(b.lo) ? -kInf : imin(b.lo + 1, 0), is_inf(b.hi) ? kInf : imax(b.hi - 1, 0)};
}

Iv join(const Iv& a, const Iv& b) { return {imin(a.lo, b.lo), imax(a.hi, b.hi)}; }

// Intersects with (signed) or checks against (unsigned) the type's range.
IntBound fit(const Iv& v, DataType t) {
  if (!t.is_integral()) return IntBound::everything();
  Iv range = widen(IntBound::of_type(t));
  if (t.is_int()) {
    Iv r{imax(v.lo, range.lo), imin(v.hi, range.hi)};
    if (r.lo > r.hi) return narrow(range);
    return narrow(r);
  }
  if (v.lo >= range.lo && v.hi <= range.hi && v.lo <= v.hi) return narrow(v);
  return narrow(range);
}

}  // namespace

IntBound IntBound::of_type(DataType t) {
  if (!t.is_integral()) return everything();
  if (t.is_bool()) return {0, 1};
  int bits = t.bits();
  if (t.is_int()) {
    if (bits >= 64) return everything();
    return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
  }
  if (bits >= 64) return {0, kPosInf};
  return {0, static_cast<int64_t>((uint64_t{1} << bits) - 1)};
}

std::ostream& operator<<(std::ostream& os, const IntBound& b) {
  os << "[";
  if (b.has_min()) os << b.min;
  else os << "-inf";
  os << ", ";
  if (b.has_max()) os << b.max;
  else os << "+inf";
  return os << "]";
}

// The recursive walk; a friend of the analyzer for its tables.
class BoundVisitor {
 public:
  explicit BoundVisitor(ConstIntBoundAnalyzer& a) : a_(a) {}

  IntBound bound(const Expr& e) {
    ExprKind k = e.kind();
    bool memo = a_.let_depth_ == 0 && k != ExprKind::IntImm && k != ExprKind::Var;
    if (memo) {
      auto it = a_.cache_.find(e.get());
      if (it != a_.cache_.end()) return it->second.second;
    }
    IntBound r = compute(e);
    if (memo) a_.cache_.emplace(e.get(), std::make_pair(e, r));
    return r;
  }

 private:
  Iv iv(const Expr& e) { return widen(bound(e)); }

  IntBound compute(const Expr& e) {
    DataType t = e.dtype();
    if (!t.is_integral()) return IntBound::everything();
    switch (e.kind()) {
      case ExprKind::IntImm: {
        int64_t v = e.as<IntImmNode>()->value;
        if (t.is_uint() && t.bits() >= 64 && v < 0) return IntBound::of_type(t);
        return IntBound::exactly(v);
      }
      case ExprKind::Var: {
        auto it = a_.vars_.find(e.as<VarNode>());
        if (it == a_.vars_.end()) return IntBound::of_type(t);
        return fit(widen(it->second.second), t);
      }
      case ExprKind::Add: return binary<AddNode>(e, [](Iv a, Iv b) { return add(a, b); });
      case ExprKind::Sub: return binary<SubNode>(e, [](Iv a, Iv b) { return add(a, neg(b)); });
      case ExprKind::Mul: return binary<MulNode>(e, [](Iv a, Iv b) { return mul(a, b); });
      case ExprKind::Div: return partial<DivNode>(e, [](Iv a, Iv b) { return div(a, b, false); });
      case ExprKind::FloorDiv: return partial<FloorDivNode>(e, [](Iv a, Iv b) { return div(a, b, true); });
      case ExprKind::Mod: return partial<ModNode>(e, [](Iv a, Iv b) { return mod(a, b); });
      case ExprKind::FloorMod: return partial<FloorModNode>(e, [](Iv a, Iv b) { return floormod(a, b); });
      case ExprKind::Min:
        return binary<MinNode>(e, [](Iv a, Iv b) { return Iv{imin(a.lo, b.lo), imin(a.hi, b.hi)}; });
      case ExprKind::Max:
        return binary<MaxNode>(e, [](Iv a, Iv b) { return Iv{imax(a.lo, b.lo), imax(a.hi, b.hi)}; });
      case ExprKind::EQ: return compare<EQNode>(e);
      case ExprKind::NE: return compare<NENode>(e);
      case ExprKind::LT: return compare<LTNode>(e);
      case ExprKind::LE: return compare<LENode>(e);
      case ExprKind::GT: return compare<GTNode>(e);
      case ExprKind::GE: return compare<GENode>(e);
      case ExprKind::And: {
        const auto* n = e.as<AndNode>();
        IntBound a = bound(n->a), b = bound(n->b);
        if (a.min >= 1 && b.min >= 1) return IntBound::exactly(1);
        if (a.max <= 0 || b.max <= 0) return IntBound::exactly(0);
        return {0, 1};
      }
      case ExprKind::Or: {
        const auto* n = e.as<OrNode>();
        IntBound a = bound(n->a), b = bound(n->b);
        if (a.min >= 1 || b.min >= 1) return IntBound::exactly(1);
        if (a.max <= 0 && b.max <= 0) return IntBound::exactly(0);
        return {0, 1};
      }
      case ExprKind::Not: {
        IntBound a = bound(e.as<NotNode>()->a);
        if (a.min >= 1) return IntBound::exactly(0);
        if (a.max <= 0) return IntBound::exactly(1);
        return {0, 1};
      }
      case ExprKind::Select: {
        const auto* n = e.as<SelectNode>();
        IntBound c = bound(n->cond);
        if (c.min >= 1) return bound(n->true_value);
        if (c.max <= 0) return bound(n->false_value);
        return fit(join(iv(n->true_value), iv(n->false_value)), t);
      }
      case ExprKind::Cast: {
        const Expr& v = e.as<CastNode>()->value;
        if (!v.dtype().is_integral()) return IntBound::of_type(t);
        IntBound b = bound(v);
        if (t.is_bool()) {
          if (b.min > 0 || b.max < 0) return IntBound::exactly(1);
          if (b.min == 0 && b.max == 0) return IntBound::exactly(0);
          return {0, 1};
        }
        // A narrowing cast wraps (it is not an overflow): a value that may
        // not fit may become anything the type holds.
        IntBound range = IntBound::of_type(t);
        if (b.min >= range.min && b.max <= range.max && b.min <= b.max) return b;
        return range;
      }
      case ExprKind::Ramp: {
        const auto* n = e.as<RampNode>();
        Iv steps{0, n->lanes - 1};
        return fit(add(iv(n->base), mul(iv(n->stride), steps)), t);
      }
      case ExprKind::Broadcast: return bound(e.as<BroadcastNode>()->value);
      case ExprKind::Let: {
        const auto* n = e.as<LetNode>();
        IntBound v = bound(n->value);
        std::optional<IntBound> saved = a_.binding(n->var);
        a_.vars_[n->var.operator->()] = {n->var, v};
        ++a_.let_depth_;
        IntBound r = bound(n->body);
        --a_.let_depth_;
        if (saved) a_.vars_[n->var.operator->()] = {n->var, *saved};
        else a_.vars_.erase(n->var.operator->());
        return r;
      }
      default: return IntBound::of_type(t);
    }
  }

  template <typename N, typename F>
  IntBound binary(const Expr& e, F f) {
    const auto* n = static_cast<const N*>(e.get());
    return fit(f(iv(n->a), iv(n->b)), e.dtype());
  }

  template <typename N, typename F>
  IntBound partial(const Expr& e, F f) {
    const auto* n = static_cast<const N*>(e.get());
    std::optional<Iv> r = f(iv(n->a), iv(n->b));
    return r ? fit(*r, e.dtype()) : IntBound::of_type(e.dtype());
  }

  template <typename N>
  IntBound compare(const Expr& e) {
    const auto* n = static_cast<const N*>(e.get());
    if (!n->a.dtype().is_integral()) return {0, 1};
    Iv a = iv(n->a), b = iv(n->b);
    auto decide = [](bool always, bool never) {
      if (always) return IntBound::exactly(1);
      if (never) return IntBound::exactly(0);
      return IntBound{0, 1};
    };
    bool a_lt_b = a.hi < b.lo, a_le_b = a.hi <= b.lo, b_lt_a = b.hi < a.lo, b_le_a = b.hi <= a.lo;
    switch (N::kKind) {
      case ExprKind::EQ: return decide(is_single(a) && is_single(b) && a.lo == b.lo, a_lt_b || b_lt_a);
      case ExprKind::NE: return decide(a_lt_b || b_lt_a, is_single(a) && is_single(b) && a.lo == b.lo);
      case ExprKind::LT: return decide(a_lt_b, b_le_a);
      case ExprKind::LE: return decide(a_le_b, b_lt_a);
      case ExprKind::GT: return decide(b_lt_a, a_le_b);
      case ExprKind::GE: return decide(b_le_a, a_lt_b);
      default: return {0, 1};
    }
  }

  ConstIntBoundAnalyzer& a_;
};

void ConstIntBoundAnalyzer::bind(const Var& v, IntBound b) {
  vars_[v.operator->()] = {v, b};
  cache_.clear();
}

void ConstIntBoundAnalyzer::bind(const Var& v, const Range& r) {
  IntBound lo = (*this)(r->min);
  IntBound ext = (*this)(r->extent);
  Iv min = widen(lo);
  i128 ext_max = imax(widen(ext.max), 1);
  i128 hi = (min.hi == kInf || ext_max == kInf) ? kInf : clamp(min.hi + ext_max - 1);
  bind(v, narrow(Iv{min.lo, hi}));
}

void ConstIntBoundAnalyzer::unbind(const Var& v) {
  vars_.erase(v.operator->());
  cache_.clear();
}

std::optional<IntBound> ConstIntBoundAnalyzer::binding(const Var& v) const {
  auto it = vars_.find(v.operator->());
  if (it == vars_.end()) return std::nullopt;
  return it->second.second;
}

IntBound ConstIntBoundAnalyzer::operator()(const Expr& e) {
  if (cache_.size() > 100000) cache_.clear();
  return BoundVisitor(*this).bound(e);
}

IntBound bound_add(const IntBound& a, const IntBound& b) { return narrow(add(widen(a), widen(b))); }

IntBound bound_scale(const IntBound& a, int64_t c) { return narrow(mul(widen(a), single(c))); }

IntBound const_int_bound(const Expr& e, const std::vector<std::pair<Var, IntBound>>& vars) {
  ConstIntBoundAnalyzer a;
  for (const auto& [v, b] : vars) a.bind(v, b);
  return a(e);
}

IntBound const_int_bound(const Expr& e, const std::vector<std::pair<Var, Range>>& vars) {
  ConstIntBoundAnalyzer a;
  for (const auto& [v, r] : vars) a.bind(v, r);
  return a(e);
}

}  // namespace kiln::arith
