// The rewriting engine behind Analyzer::simplify (not a public interface).
//
// A bottom-up mutator: each node's children are simplified first, then the
// rules of the node's family (simplify_<family>.cpp, one file each) are tried
// in order; the first that applies produces a new expression, which is
// simplified again, so one pass reaches a fixed point when the rules
// terminate. Every rule must make the expression smaller or move it towards
// the canonical form (constants to the right and outwards, comparisons as
// `x < c` / `x > c` / `x < y + c`), never back.
//
// Results are memoised per node while the variable bounds stay the same, so
// re-simplifying an already simplified tree costs one lookup per node, and
// an expression that does not change comes back as the very same node. They
// are also found again by structure: a subtree that occurs as several
// objects (inlining substitutes a producer's body once per use, so a
// Winograd input transform holds each padded load, its guard and its index
// arithmetic tens of times) is simplified once, and its twins take that
// result (a 64->64 Winograd layer's lowering simplified 14,000 nodes of
// which under 1,500 were distinct). Twins are equal as structural_equal
// says, free variables as themselves: the same value under the same bounds.
#pragma once

#include <unordered_map>
#include <utility>

#include "core/arith/const_int_bound.h"
#include "core/arith/linear.h"
#include "core/arith/node_hashes.h"
#include "core/arith/pattern.h"
#include "core/functor.h"

namespace kiln::arith {

class Rewriter : public ExprMutator {
 public:
  explicit Rewriter(ConstIntBoundAnalyzer& bounds) : bounds_(bounds) {}

  Expr mutate(const Expr& e) override;
  void clear_cache() {
    memo_.by_node.clear();
    memo_.by_structure.clear();
  }

  Expr visit_IntImm(const IntImmNode*, const Expr& e) override { return e; }
  Expr visit_FloatImm(const FloatImmNode*, const Expr& e) override { return e; }
  Expr visit_StringImm(const StringImmNode*, const Expr& e) override { return e; }
  Expr visit_Var(const VarNode*, const Expr& e) override { return e; }
#define X(Name, Sym) Expr visit_##Name(const Name##Node* op, const Expr& e) override;
  KILN_FOR_EACH_BINARY_EXPR(X)
  KILN_FOR_EACH_CMP_EXPR(X)
  KILN_FOR_EACH_LOGIC_EXPR(X)
#undef X
  Expr visit_Not(const NotNode* op, const Expr& e) override;
  Expr visit_Select(const SelectNode* op, const Expr& e) override;
  Expr visit_Cast(const CastNode* op, const Expr& e) override;
  Expr visit_Ramp(const RampNode* op, const Expr& e) override;
  Expr visit_Broadcast(const BroadcastNode* op, const Expr& e) override;
  Expr visit_Let(const LetNode* op, const Expr& e) override;

 private:
  using Rules = Expr (Rewriter::*)(const Expr&);

  // Rule families. Each takes a node whose children are simplified and
  // returns its rewrite, or an undefined Expr when no rule applies.
  Expr rewrite_add(const Expr& e);
  Expr rewrite_sub(const Expr& e);
  Expr rewrite_mul(const Expr& e);
  Expr rewrite_div(const Expr& e);
  Expr rewrite_mod(const Expr& e);
  Expr rewrite_floordiv(const Expr& e);
  Expr rewrite_floormod(const Expr& e);
  Expr rewrite_min(const Expr& e);
  Expr rewrite_max(const Expr& e);
  Expr rewrite_cmp(const Expr& e);
  Expr rewrite_and(const Expr& e);
  Expr rewrite_or(const Expr& e);
  Expr rewrite_not(const Expr& e);
  Expr rewrite_select(const Expr& e);
  Expr rewrite_cast(const Expr& e);
  Expr rewrite_ramp(const Expr& e);
  // Arithmetic on Broadcast and Ramp operands, for any binary kind.
  Expr rewrite_vector(const Expr& e);
  // Sums whose linear form is smaller than they are (terms cancel or merge).
  Expr rewrite_linear_sum(const Expr& e);

  // Simplifies a binary node's children, folds constants, applies rules.
  template <typename N>
  Expr visit_binary(const N* op, const Expr& e, Rules rules);
  // The constant e's bound allows, or e itself: an integer expression whose
  // bound is one value is that value (a variable bound to [3, 3] is 3).
  Expr known_constant(const Expr& e);
  // Simplifies the rewrite r of a node (the rules' results are not yet simple).
  Expr resimplify(const Expr& r);

  // Bounds for side conditions.
  IntBound bound(const Expr& e) { return bounds_(e); }
  // A bound of a - b as values (no overflow), using linear forms to cancel
  // what a and b share.
  IntBound diff_bound(const Expr& a, const Expr& b);
  bool prove_le(const Expr& a, const Expr& b) { return diff_bound(a, b).max <= 0; }
  bool prove_lt(const Expr& a, const Expr& b) { return diff_bound(a, b).max < 0; }

  // A twin of e simplified under the current bounds (its result, or e
  // itself where the twin did not change), or an undefined Expr.
  Expr twin_result(const Expr& e, uint64_t hash);

  ConstIntBoundAnalyzer& bounds_;
  // What was simplified under the current bounds: each node's result, and
  // by structural hash one node and its result (a twin whose hash collides
  // with another's is simplified anew rather than kept beside it).
  struct Memo {
    std::unordered_map<const Object*, std::pair<Expr, Expr>> by_node;
    std::unordered_map<uint64_t, std::pair<Expr, Expr>> by_structure;
  };
  Memo memo_;
  NodeHashes hashes_;
  int rewrite_depth_ = 0;
};

// Whether rules of integer algebra apply to type t: signed integers, whose
// arithmetic is assumed not to overflow. Unsigned and float arithmetic only
// get constant folding and exact identities.
inline bool is_int_algebra(DataType t) { return t.is_int(); }

// The constant v in type t (broadcast for vectors).
inline Expr const_like(DataType t, int64_t v) { return pattern::make_int_like(t, v); }

// True if v fits t's range.
bool fits_type(DataType t, __int128 v);

// The folded value of a binary node whose operands are both immediates;
// undefined when it has none (other operands, division by zero).
Expr fold_constants(const Expr& e);

template <typename N>
Expr Rewriter::visit_binary(const N* op, const Expr& e, Rules rules) {
  Expr a = mutate(op->a);
  Expr b = mutate(op->b);
  Expr cur = (a.same_as(op->a) && b.same_as(op->b)) ? e : make_binary(N::kKind, a, b);
  Expr folded = fold_constants(cur);
  if (folded.defined()) return folded;
  Expr r;
  if (cur.dtype().is_vector() || a.dtype().is_vector()) r = rewrite_vector(cur);
  if (!r.defined()) r = (this->*rules)(cur);
  return r.defined() ? resimplify(r) : cur;
}

}  // namespace kiln::arith
