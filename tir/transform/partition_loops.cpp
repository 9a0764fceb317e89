#include "tir/transform/partition_loops.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/arith/const_int_bound.h"
#include "core/arith/linear.h"
#include "core/int_div.h"
#include "tir/analysis/code_size.h"
#include "tir/functor.h"

namespace kiln {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return -floordiv_i(-a, b); }

// The comparisons `cond` is the conjunction of (a vector condition's lanes
// all alike: Broadcast).
void conjuncts(const Expr& cond, std::vector<Expr>& out) {
  if (const auto* b = cond.as<BroadcastNode>()) return conjuncts(b->value, out);
  if (const auto* a = cond.as<AndNode>()) {
    conjuncts(a->a, out);
    conjuncts(a->b, out);
    return;
  }
  out.push_back(cond);
}

// `c` as `d >= 0` for an integer d; nullopt for any other condition.
std::optional<Expr> as_nonnegative(const Expr& c) {
  auto integer = [](const Expr& a) { return a.dtype().is_scalar() && a.dtype().is_int(); };
  auto one = [](const Expr& a) { return int_imm(a.dtype(), 1); };
  if (const auto* x = c.as<LTNode>(); x && integer(x->a)) return x->b - x->a - one(x->a);
  if (const auto* x = c.as<LENode>(); x && integer(x->a)) return x->b - x->a;
  if (const auto* x = c.as<GTNode>(); x && integer(x->a)) return x->a - x->b - one(x->a);
  if (const auto* x = c.as<GENode>(); x && integer(x->a)) return x->a - x->b;
  return std::nullopt;
}

// The conditions of the Selects and IfThenElses in `s`, as conjuncts.
std::vector<Expr> conditions_in(const Stmt& s) {
  std::vector<Expr> out;
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* i = x.as<IfThenElseNode>()) conjuncts(i->condition, out);
  });
  visit_exprs(s, [&](const Expr& e) {
    if (const auto* sel = e.as<SelectNode>()) conjuncts(sel->cond, out);
  });
  return out;
}

// The values of `loop`'s variable, [first, last], for which `d >= 0` holds
// whatever the loops inside it take (`inner`: their bounds); nullopt where
// d does not use the variable, is not linear in it, or names a variable
// not bound there.
std::optional<std::pair<int64_t, int64_t>> holds_for(const ForNode* loop, const Expr& d,
                                                       arith::ConstIntBoundAnalyzer& inner, int64_t first,
                                                       int64_t last) {
  const std::optional<int64_t> k = arith::coefficient_of(d, loop->loop_var.as<VarNode>());
  if (!k || *k == 0) return std::nullopt;
  std::optional<arith::LinearForm> form = arith::linear_form(d);
  if (!form) return std::nullopt;
  std::erase_if(form->terms, [&](const auto& t) { return t.first.get() == loop->loop_var.get(); });
  const arith::IntBound rest = arith::linear_bound(*form, inner);
  if (!rest.has_min()) return std::nullopt;
  // k * v + rest >= 0 for every rest >= rest.min.
  if (*k > 0) return std::pair{std::max(first, ceil_div(-rest.min, *k)), last};
  return std::pair{first, std::min(last, floordiv_i(rest.min, -*k))};
}

// The bounds of the loops inside `s` (only they: a variable bound outside
// stays unknown, so a condition naming it never counts).
void bind_inner_loops(const Stmt& s, arith::ConstIntBoundAnalyzer& ana) {
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* f = x.as<ForNode>()) ana.bind(f->loop_var, Range(f->min, f->extent));
  });
}

// `loop` over [from, to) of its iterations, with a variable of its own.
Stmt piece(const ForNode* loop, int64_t from, int64_t to) {
  if (to <= from) return no_op();
  Var v(loop->loop_var.name(), loop->loop_var.dtype());
  const DataType t = loop->loop_var.dtype();
  return for_loop(v, int_imm(t, from), int_imm(t, to - from), loop->for_kind,
                  substitute(loop->body, {{loop->loop_var, v}}), loop->thread_tag, loop->annotations);
}

class Partitioner : public StmtMutator {
 public:
  explicit Partitioner(int64_t growth) : growth_(growth) {}
  using StmtMutator::mutate;

  bool changed() const { return changed_; }

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    return partition(with_loop_body(s, mutate(op->body)));  // inner loops first
  }

 private:
  Stmt partition(const Stmt& s) {
    const auto* op = s.as<ForNode>();
    const int64_t* min = as_const_int(op->min);
    const int64_t* extent = as_const_int(op->extent);
    if (op->for_kind != ForKind::kSerial || !min || !extent || *extent < 2) return s;
    const int64_t size = stmt_count(s);
    if (size > kMaxPartitionStmts || 2 * size > growth_) return s;
    const int64_t first = *min, last = *min + *extent - 1;
    arith::ConstIntBoundAnalyzer inner;
    bind_inner_loops(op->body, inner);
    // Where every condition that holds on some whole range of the loop does.
    int64_t lo = first, hi = last;
    bool any = false;
    for (const Expr& c : conditions_in(op->body)) {
      const std::optional<Expr> d = as_nonnegative(c);
      if (!d) continue;
      const std::optional<std::pair<int64_t, int64_t>> range = holds_for(op, *d, inner, first, last);
      if (!range || range->first > range->second || (range->first == first && range->second == last)) continue;
      lo = std::max(lo, range->first);
      hi = std::min(hi, range->second);
      any = true;
    }
    if (!any || lo > hi) return s;
    changed_ = true;
    growth_ -= 2 * size;
    return seq({piece(op, first, lo), piece(op, lo, hi + 1), piece(op, hi + 1, last + 1)});
  }

  int64_t growth_;
  bool changed_ = false;
};

}  // namespace

PrimFunc partition_loops(const PrimFunc& f) {
  Partitioner p(std::max(2 * kMaxPartitionStmts, stmt_count(f.body())));
  Stmt body = p.mutate(f.body());
  return p.changed() ? f.with_body(body) : f;
}

}  // namespace kiln
