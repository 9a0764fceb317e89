// A small pattern language for the simplifier's rewrite rules.
//
// A rule reads like the algebra it states:
//
//   PVar x, y;          // bind any sub-expression
//   PConst c1, c2;      // bind a scalar integer constant
//   Rewrite rw(e);
//   if (rw(x * c1 + x * c2, x * (c1 + c2)) ||
//       rw(floordiv(x * c1 + y, c2), x * (c1 / c2) + floordiv(y, c2),
//          [&] { return c2.value() > 0 && c1.value() % c2.value() == 0; }))
//     return rw.result();
//
// The left side is matched against e; a variable that occurs twice must bind
// equal expressions (structural_equal: the same free variables, not up to renaming). The
// optional side condition runs after a successful match and may read the
// bindings (x.value(), c1.value()) and ask the analyzer anything. The right
// side is built with the folding constructors of core/expr.h, so `c1 + c2`
// becomes one constant; integer literals take the type of the other operand
// (or of e). A right side may also be a callable returning an Expr.
//
// Patterns are expression templates: matching costs a few kind tests, and a
// failed rule allocates nothing. A rule whose result equals e does not count
// as applied, so "nothing changed" always means the very same node.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/expr.h"
#include "core/structural.h"

namespace kiln::arith::pattern {

// Each match attempt gets a new epoch; a variable bound in an earlier epoch
// counts as unbound, so no reset pass over the variables is needed.
inline thread_local uint64_t g_match_epoch = 1;

struct PatternTag {};

template <typename T>
inline constexpr bool is_pattern_v = std::is_base_of_v<PatternTag, std::remove_cvref_t<T>>;

// The integer or float constant v of type t (broadcast for vector types).
Expr make_int_like(DataType t, int64_t v);

// Matches any expression.
class PVar : public PatternTag {
 public:
  static constexpr bool kLeaf = true;
  static constexpr bool kLiteral = false;
  bool match(const Expr& e) const {
    if (epoch_ != g_match_epoch) {
      value_ = e;
      epoch_ = g_match_epoch;
      return true;
    }
    return structural_equal(value_, e);
  }
  Expr build(DataType) const { return value_; }
  const Expr& value() const { return value_; }

 private:
  mutable Expr value_;
  mutable uint64_t epoch_ = 0;
};

// Matches a scalar integer immediate.
class PConst : public PatternTag {
 public:
  static constexpr bool kLeaf = true;
  static constexpr bool kLiteral = false;
  bool match(const Expr& e) const {
    const auto* n = e.as<IntImmNode>();
    if (!n) return false;
    if (epoch_ != g_match_epoch) {
      expr_ = e;
      value_ = n->value;
      epoch_ = g_match_epoch;
      return true;
    }
    return n->value == value_ && e.dtype() == expr_.dtype();
  }
  Expr build(DataType) const { return expr_; }
  int64_t value() const { return value_; }
  const Expr& expr() const { return expr_; }
  DataType dtype() const { return expr_.dtype(); }

 private:
  mutable Expr expr_;
  mutable int64_t value_ = 0;
  mutable uint64_t epoch_ = 0;
};

// Matches an integer (lane count of a Ramp or Broadcast).
class PLanes : public PatternTag {
 public:
  static constexpr bool kLeaf = true;
  static constexpr bool kLiteral = false;
  bool match_lanes(int64_t v) const {
    if (epoch_ != g_match_epoch) {
      value_ = v;
      epoch_ = g_match_epoch;
      return true;
    }
    return v == value_;
  }
  int64_t value() const { return value_; }

 private:
  mutable int64_t value_ = 0;
  mutable uint64_t epoch_ = 0;
};

// An integer literal in a pattern: matches that integer immediate; built
// with the type the context gives it.
struct PLit : PatternTag {
  static constexpr bool kLeaf = false;
  static constexpr bool kLiteral = true;
  int64_t v;
  bool match(const Expr& e) const {
    const auto* n = e.as<IntImmNode>();
    return n && n->value == v;
  }
  Expr build(DataType hint) const { return make_int_like(hint, v); }
};

// A leaf held by reference (its binding lives in the leaf).
template <typename T>
struct PRef : PatternTag {
  static constexpr bool kLiteral = false;
  const T* p;
  bool match(const Expr& e) const { return p->match(e); }
  Expr build(DataType hint) const { return p->build(hint); }
};

template <typename T>
auto wrap(const T& t) {
  if constexpr (std::is_integral_v<T>) {
    return PLit{{}, static_cast<int64_t>(t)};
  } else if constexpr (T::kLeaf) {
    return PRef<T>{{}, &t};
  } else {
    return t;
  }
}
template <typename T>
using wrapped_t = decltype(wrap(std::declval<const T&>()));

template <ExprKind K>
struct NodeOf;
#define X(Name, Sym)                    \
  template <>                           \
  struct NodeOf<ExprKind::Name> {       \
    using type = Name##Node;            \
  };
KILN_FOR_EACH_BINARY_EXPR(X)
KILN_FOR_EACH_CMP_EXPR(X)
KILN_FOR_EACH_LOGIC_EXPR(X)
#undef X

// The folding constructor of a binary kind (add, sub, lt, ...).
Expr build_binary(ExprKind k, Expr a, Expr b);

constexpr bool is_cmp_kind(ExprKind k) { return k >= ExprKind::EQ && k <= ExprKind::GE; }

template <ExprKind K, typename A, typename B>
struct PBinary : PatternTag {
  static constexpr bool kLeaf = false;
  static constexpr bool kLiteral = false;
  A a;
  B b;
  bool match(const Expr& e) const {
    if (e.kind() != K) return false;
    const auto* n = static_cast<const typename NodeOf<K>::type*>(e.get());
    return a.match(n->a) && b.match(n->b);
  }
  Expr build(DataType hint) const {
    // A comparison's operands do not have its type; a literal there takes
    // the other operand's type.
    DataType h = is_cmp_kind(K) ? DataType::Int32().with_lanes(hint.lanes()) : hint;
    Expr ea, eb;
    if constexpr (A::kLiteral && !B::kLiteral) {
      eb = b.build(h);
      ea = a.build(eb.dtype());
    } else {
      ea = a.build(h);
      eb = b.build(B::kLiteral ? ea.dtype() : h);
    }
    return build_binary(K, std::move(ea), std::move(eb));
  }
};

template <typename A>
struct PNot : PatternTag {
  static constexpr bool kLeaf = false;
  static constexpr bool kLiteral = false;
  A a;
  bool match(const Expr& e) const {
    const auto* n = e.as<NotNode>();
    return n && a.match(n->a);
  }
  Expr build(DataType hint) const { return logical_not(a.build(hint)); }
};

template <typename C, typename T, typename F>
struct PSelect : PatternTag {
  static constexpr bool kLeaf = false;
  static constexpr bool kLiteral = false;
  C c;
  T t;
  F f;
  bool match(const Expr& e) const {
    const auto* n = e.as<SelectNode>();
    return n && c.match(n->cond) && t.match(n->true_value) && f.match(n->false_value);
  }
  Expr build(DataType hint) const {
    Expr et = t.build(hint);
    Expr ef = f.build(et.dtype());
    if constexpr (T::kLiteral && !F::kLiteral) et = t.build(ef.dtype());
    return select(c.build(DataType::Bool(hint.lanes())), et, ef);
  }
};

template <typename A>
struct PBroadcast : PatternTag {
  static constexpr bool kLeaf = false;
  static constexpr bool kLiteral = false;
  A a;
  const PLanes* lanes;
  bool match(const Expr& e) const {
    const auto* n = e.as<BroadcastNode>();
    return n && lanes->match_lanes(n->lanes) && a.match(n->value);
  }
  Expr build(DataType hint) const { return broadcast(a.build(hint.element_of()), lanes->value()); }
};

template <typename A, typename B>
struct PRamp : PatternTag {
  static constexpr bool kLeaf = false;
  static constexpr bool kLiteral = false;
  A base;
  B stride;
  const PLanes* lanes;
  bool match(const Expr& e) const {
    const auto* n = e.as<RampNode>();
    return n && lanes->match_lanes(n->lanes) && base.match(n->base) && stride.match(n->stride);
  }
  Expr build(DataType hint) const {
    Expr b = base.build(hint.element_of());
    return ramp(b, stride.build(b.dtype()), lanes->value());
  }
};

// Operands: two patterns, or a pattern and an integer literal.
template <typename A, typename B>
concept Operands = (is_pattern_v<A> || is_pattern_v<B>) && (is_pattern_v<A> || std::is_integral_v<A>) &&
                   (is_pattern_v<B> || std::is_integral_v<B>);

#define KILN_PATTERN_BINARY(fn, Kind)                                                  \
  template <typename A, typename B>                                                    \
    requires Operands<A, B>                                                            \
  auto fn(const A& a, const B& b) {                                                    \
    return PBinary<ExprKind::Kind, wrapped_t<A>, wrapped_t<B>>{{}, wrap(a), wrap(b)};  \
  }
KILN_PATTERN_BINARY(operator+, Add)
KILN_PATTERN_BINARY(operator-, Sub)
KILN_PATTERN_BINARY(operator*, Mul)
KILN_PATTERN_BINARY(operator/, Div)
KILN_PATTERN_BINARY(operator%, Mod)
KILN_PATTERN_BINARY(floordiv, FloorDiv)
KILN_PATTERN_BINARY(floormod, FloorMod)
KILN_PATTERN_BINARY(min, Min)
KILN_PATTERN_BINARY(max, Max)
KILN_PATTERN_BINARY(operator==, EQ)
KILN_PATTERN_BINARY(operator!=, NE)
KILN_PATTERN_BINARY(operator<, LT)
KILN_PATTERN_BINARY(operator<=, LE)
KILN_PATTERN_BINARY(operator>, GT)
KILN_PATTERN_BINARY(operator>=, GE)
KILN_PATTERN_BINARY(operator&&, And)
KILN_PATTERN_BINARY(operator||, Or)
#undef KILN_PATTERN_BINARY

template <typename A>
  requires is_pattern_v<A>
auto operator!(const A& a) {
  return PNot<wrapped_t<A>>{{}, wrap(a)};
}

template <typename C, typename T, typename F>
  requires is_pattern_v<C>
auto select(const C& c, const T& t, const F& f) {
  return PSelect<wrapped_t<C>, wrapped_t<T>, wrapped_t<F>>{{}, wrap(c), wrap(t), wrap(f)};
}

template <typename A>
  requires(is_pattern_v<A> || std::is_integral_v<A>)
auto broadcast(const A& a, const PLanes& lanes) {
  return PBroadcast<wrapped_t<A>>{{}, wrap(a), &lanes};
}

template <typename A, typename B>
  requires is_pattern_v<A>
auto ramp(const A& base, const B& stride, const PLanes& lanes) {
  return PRamp<wrapped_t<A>, wrapped_t<B>>{{}, wrap(base), wrap(stride), &lanes};
}

// Applies rules to one expression; see the header comment.
class Rewrite {
 public:
  explicit Rewrite(const Expr& e) : e_(e) {}

  template <typename P, typename R>
  bool operator()(const P& pattern, const R& result) {
    return (*this)(pattern, result, [] { return true; });
  }

  template <typename P, typename R, typename C>
  bool operator()(const P& pattern, const R& result, const C& cond) {
    ++g_match_epoch;
    if (!wrap(pattern).match(e_) || !cond()) return false;
    Expr r;
    if constexpr (std::is_invocable_r_v<Expr, const R&>) {
      r = result();
    } else {
      r = wrap(result).build(e_.dtype());
    }
    if (!r.defined() || structural_equal(r, e_)) return false;
    result_ = std::move(r);
    return true;
  }

  const Expr& result() const { return result_; }

 private:
  const Expr& e_;
  Expr result_;
};

}  // namespace kiln::arith::pattern
