// Integer bounds: an interval [min, max] known to contain every value an
// integer expression can take, given intervals for its variables.
//
// The simplifier decides comparisons, drops min/max and folds divisions with
// it; passes use it to know that an index stays in range. The analysis is
// sound (the true values always lie inside the bound) but not always tight:
// it sees x - x as [lo - hi, hi - lo]. The simplifier's linear forms
// (core/arith/linear.h) recover such correlations before asking for bounds.
//
// Infinity: IntBound::kNegInf (INT64_MIN) as min means "unbounded below",
// IntBound::kPosInf (INT64_MAX) as max means "unbounded above". Arithmetic on
// bounds is done in 128 bits and saturates into these sentinels, so the
// analysis itself never overflows; the price is that INT64_MIN and INT64_MAX
// are never reported as finite bounds.
//
// The program's own arithmetic: signed integer arithmetic is assumed not to
// overflow (as in C, and as index arithmetic requires), so a signed bound is
// intersected with its type's range. Unsigned arithmetic wraps, so an unsigned
// bound that leaves its type's range becomes the whole range. Vector
// expressions are bounded over all their lanes. A division by a divisor whose
// bound is exactly zero has no meaning and gets its type's whole range.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/expr.h"

namespace kiln::arith {

struct IntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();

  int64_t min = kNegInf;
  int64_t max = kPosInf;

  static IntBound everything() { return {}; }
  static IntBound exactly(int64_t v) { return {v, v}; }
  // The values a type can hold: [-2^31, 2^31-1] for int32, [0, 1] for bool;
  // everything for float and handle types.
  static IntBound of_type(DataType t);

  bool has_min() const { return min != kNegInf; }
  bool has_max() const { return max != kPosInf; }
  bool is_const() const { return min == max && has_min() && has_max(); }
  bool contains(int64_t v) const { return min <= v && v <= max; }
  bool operator==(const IntBound&) const = default;
};

// "[0, 15]", "[-inf, 3]".
std::ostream& operator<<(std::ostream& os, const IntBound& b);

// Bounds of expressions under bounds of variables (by identity), memoised per
// node. Rebinding a variable forgets what was memoised.
class ConstIntBoundAnalyzer {
 public:
  // v takes values in b (replacing any earlier binding of v).
  void bind(const Var& v, IntBound b);
  // v takes values in [min, min + extent); min and extent may be expressions,
  // bounded in turn. An extent that may be 0 binds v as if it were 1.
  void bind(const Var& v, const Range& r);
  void unbind(const Var& v);
  std::optional<IntBound> binding(const Var& v) const;

  IntBound operator()(const Expr& e);

  // Forgets memoised results (bindings stay).
  void clear_cache() { cache_.clear(); }

 private:
  friend class BoundVisitor;
  std::unordered_map<const VarNode*, std::pair<Var, IntBound>> vars_;
  std::unordered_map<const Object*, std::pair<Expr, IntBound>> cache_;
  int let_depth_ = 0;  // no memoising inside let bodies: the let var's bound is scoped
};

// Saturating interval arithmetic on bounds: infinite ends stay infinite.
IntBound bound_add(const IntBound& a, const IntBound& b);
IntBound bound_scale(const IntBound& a, int64_t c);

// One-shot bounds, for callers without an Analyzer.
IntBound const_int_bound(const Expr& e, const std::vector<std::pair<Var, IntBound>>& vars = {});
IntBound const_int_bound(const Expr& e, const std::vector<std::pair<Var, Range>>& vars);

}  // namespace kiln::arith
