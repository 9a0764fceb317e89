// The arithmetic analyzer: what is known about integer variables, and the
// simplifier and prover built on it.
//
//   arith::Analyzer ana;
//   ana.bind(i, Range(0, 16));                        // 0 <= i < 16
//   ana.simplify(floordiv(i, 16));                    // 0
//   ana.simplify(floordiv(i + o * 16, 16));           // o
//   ana.can_prove(i < 16);                            // true
//   ana.const_int_bound(i * 4 + 3);                   // [3, 63]
//
// simplify() rewrites with the rules of core/arith/simplify_*.cpp (one file
// per operator family) until nothing changes; it returns the very same node
// when nothing could be simplified. Integer rules assume signed arithmetic
// does not overflow; floats only get exact constant folding and x * 1.
// Bindings last until rebound or unbound; a pass that walks scopes binds on
// entry and restores on exit (see tir/transform/simplify.cpp).
#pragma once

#include <memory>
#include <optional>

#include "core/arith/const_int_bound.h"
#include "core/expr.h"

namespace kiln::arith {

class Rewriter;

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // v takes values in [r.min, r.min + r.extent); min and extent may be
  // expressions of other bound variables.
  void bind(const Var& v, const Range& r);
  void bind(const Var& v, IntBound b);
  void unbind(const Var& v);
  std::optional<IntBound> binding(const Var& v) const;

  // A simpler equivalent of e under the bindings.
  Expr simplify(const Expr& e);
  // True only if cond (a boolean) holds for every value of the bound
  // variables; false also when it cannot tell.
  bool can_prove(const Expr& cond);
  IntBound const_int_bound(const Expr& e);

 private:
  ConstIntBoundAnalyzer bounds_;
  std::unique_ptr<Rewriter> rewriter_;
};

}  // namespace kiln::arith

namespace kiln {

// Simplifies e with nothing known about its variables.
Expr simplify(const Expr& e);

}  // namespace kiln
