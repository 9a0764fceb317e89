#include "core/arith/analyzer.h"

#include "core/arith/rewriter.h"

namespace kiln::arith {
namespace {

// One pass normally reaches the fixed point (the rewriter re-simplifies what
// its rules produce); the extra rounds only guard against a rule that leaves
// work behind.
constexpr int kMaxRounds = 4;

}  // namespace

Analyzer::Analyzer() : rewriter_(std::make_unique<Rewriter>(bounds_)) {}
Analyzer::~Analyzer() = default;

void Analyzer::bind(const Var& v, const Range& r) {
  bounds_.bind(v, r);
  rewriter_->clear_cache();
}

void Analyzer::bind(const Var& v, IntBound b) {
  bounds_.bind(v, b);
  rewriter_->clear_cache();
}

void Analyzer::unbind(const Var& v) {
  bounds_.unbind(v);
  rewriter_->clear_cache();
}

std::optional<IntBound> Analyzer::binding(const Var& v) const { return bounds_.binding(v); }

Expr Analyzer::simplify(const Expr& e) {
  if (!e.defined()) return e;
  Expr cur = e;
  for (int round = 0; round < kMaxRounds; ++round) {
    Expr next = rewriter_->mutate(cur);
    if (next.same_as(cur)) break;
    cur = next;
  }
  return cur;
}

bool Analyzer::can_prove(const Expr& cond) {
  Expr s = simplify(cond);
  if (const auto* b = s.as<BroadcastNode>()) s = b->value;
  const int64_t* v = as_const_int(s);
  return v && *v != 0;
}

IntBound Analyzer::const_int_bound(const Expr& e) { return bounds_(e); }

}  // namespace kiln::arith

namespace kiln {

Expr simplify(const Expr& e) {
  arith::Analyzer a;
  return a.simplify(e);
}

}  // namespace kiln
