#include "tir/transform/prefetch_panels.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/arith/linear.h"
#include "tir/functor.h"

namespace kiln {
namespace {

// A panel smaller than this fits the level-1 cache next to the rest of a
// tile's data; one larger than this would push the current one out of a
// level-2 cache of 1-2 MiB.
constexpr int64_t kMinPanelBytes = 16 << 10;
constexpr int64_t kMaxPanelBytes = 1 << 20;
constexpr int64_t kLineBytes = 64;
// At most this many prefetches at once, at the top of one iteration of R.
constexpr int64_t kMaxLinesPerIteration = 16;

struct Loop {
  const ForNode* node;
  int64_t min, extent;
};

// What the loads of one buffer in one loop R need prefetched.
struct Plan {
  Buffer buffer;
  std::vector<Loop> loops;  // the loops around R, outermost first, R last (inside I)
  size_t p = 0, i = 0;      // P's and I's positions in `loops`
  arith::LinearForm outer;  // the index's terms of P and the loops outside it
  int64_t lo = 0, hi = 0;   // the panel, relative to `outer`: [lo, hi]
};

// The scalar index a load starts at and the lanes it reads from there;
// nullopt for a gather.
std::optional<std::pair<Expr, int64_t>> start_of(const Expr& index) {
  if (index.dtype().lanes() == 1) return std::make_pair(index, int64_t{1});
  if (const auto* r = index.as<RampNode>(); r && is_const_int(r->stride, 1)) return std::make_pair(r->base, int64_t{r->lanes});
  if (const auto* b = index.as<BroadcastNode>()) return std::make_pair(b->value, int64_t{1});
  return std::nullopt;
}

// A parallel loop fused from two (`p` over 16 jobs: p // 8 picks a group of
// output channels, p % 8 a pair in it) indexes a packed weight at
// (p // 8) * (8 * c) + (p % 8) * c, which is p * c: the pair of terms is
// folded back into the loop variable, so that the next job's panel is c
// further on, as for a loop never fused.
void fold_fused_terms(arith::LinearForm& form) {
  for (size_t a = 0; a < form.terms.size(); ++a) {
    const auto* div = form.terms[a].first.as<FloorDivNode>();
    const int64_t* k = div ? as_const_int(div->b) : nullptr;
    if (!k || *k <= 0 || !div->a.as<VarNode>()) continue;
    for (size_t b = 0; b < form.terms.size(); ++b) {
      const auto* mod = form.terms[b].first.as<FloorModNode>();
      if (!mod || !mod->a.same_as(div->a) || !is_const_int(mod->b, *k)) continue;
      const int64_t c = form.terms[b].second;
      if (form.terms[a].second != c * *k) continue;
      form.terms[a] = {div->a, c};
      form.terms.erase(form.terms.begin() + static_cast<long>(b));
      return fold_fused_terms(form);
    }
  }
}

// Finds the plans: one per (loop R, buffer), from the loads inside R.
class Planner : public StmtVisitor {
 public:
  std::map<const ForNode*, std::vector<Plan>> plans;

  void visit_For(const ForNode* op, const Stmt& s) override {
    const int64_t* min = as_const_int(op->min);
    const int64_t* extent = as_const_int(op->extent);
    if (!min || !extent || op->for_kind == ForKind::kThreadBinding) {
      // A loop of unknown extent ends every nest around it: plan below it only.
      std::vector<Loop> saved;
      saved.swap(loops_);
      StmtVisitor::visit_For(op, s);
      loops_.swap(saved);
      return;
    }
    loops_.push_back({op, *min, *extent});
    StmtVisitor::visit_For(op, s);
    loops_.pop_back();
  }

  void visit_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
    StmtVisitor::visit_BufferLoad(op, e);
    if (op->buffer->scope != "global" || op->indices.size() != 1 || loops_.size() < 3) return;
    const std::optional<std::pair<Expr, int64_t>> start = start_of(op->indices[0]);
    if (!start) return;
    std::optional<arith::LinearForm> form = arith::linear_form(start->first);
    if (!form) return;
    fold_fused_terms(*form);
    // Each term must be a loop variable of the nest.
    std::vector<int64_t> coef(loops_.size(), 0);
    for (const auto& [term, c] : form->terms) {
      const auto* v = term.as<VarNode>();
      size_t at = loops_.size();
      for (size_t k = 0; k < loops_.size(); ++k)
        if (v && loops_[k].node->loop_var.get() == v) at = k;
      if (at == loops_.size()) return;
      coef[at] = c;
    }
    // I: the outermost loop of extent >= 2 the index does not depend on,
    // below a loop P that it does depend on.
    for (size_t i = 1; i + 1 < loops_.size(); ++i) {
      if (coef[i] != 0 || loops_[i].extent < 2) continue;
      size_t p = i;
      while (p > 0 && coef[p - 1] == 0) --p;
      if (p == 0) continue;
      --p;
      plan(*op, *form, coef, start->second, p, i);
      return;
    }
  }

 private:
  void plan(const BufferLoadNode& load, const arith::LinearForm& form, const std::vector<int64_t>& coef,
            int64_t lanes, size_t p, size_t i) {
    // The panel: the index's range over the loops inside P.
    int64_t lo = form.constant, hi = form.constant + lanes - 1;
    for (size_t k = p + 1; k < loops_.size(); ++k) {
      const int64_t first = coef[k] * loops_[k].min, last = coef[k] * (loops_[k].min + loops_[k].extent - 1);
      lo += std::min(first, last), hi += std::max(first, last);
    }
    const int64_t elem = load.buffer->dtype.bytes();
    const int64_t span = (hi - lo + 1) * elem;
    if (span < kMinPanelBytes || span > kMaxPanelBytes || std::abs(coef[p]) * elem * 2 < span) return;
    // R: the loop right inside I (the reduction, in a tiled product),
    // which all the tile's loads of the panel share; or, where that runs
    // too few times to spread the panel's lines at kMaxLinesPerIteration
    // an iteration, the serial loop inside it, and so on down (a
    // convolution's reduction is three loops, channels, kernel columns
    // and channels within a block: 32 x 3 x 16 for a 3x3 of 512 channels).
    size_t r = i + 1;
    const int64_t lines = (span + kLineBytes - 1) / kLineBytes;
    if (loops_[r].node->for_kind != ForKind::kSerial) return;
    int64_t iterations = loops_[i].extent * loops_[r].extent;
    while (lines > kMaxLinesPerIteration * iterations && r + 1 < loops_.size() &&
           loops_[r + 1].node->for_kind == ForKind::kSerial && loops_[r + 1].extent >= 2)
      iterations *= loops_[++r].extent;
    if (lines > kMaxLinesPerIteration * iterations) return;
    arith::LinearForm outer{form.dtype, {}, 0};
    for (const auto& [term, c] : form.terms)
      for (size_t k = 0; k <= p; ++k)
        if (loops_[k].node->loop_var.get() == term.get()) outer.terms.emplace_back(term, c);
    std::vector<Plan>& at = plans[loops_[r].node];
    for (Plan& known : at) {
      if (!known.buffer.same_as(load.buffer)) continue;
      // Another load of the panel (another vector of the tile): one panel.
      if (known.p == p && known.i == i && same_terms(known.outer, outer))
        known.lo = std::min(known.lo, lo), known.hi = std::max(known.hi, hi);
      return;
    }
    at.push_back(Plan{load.buffer, std::vector<Loop>(loops_.begin(), loops_.begin() + static_cast<long>(r) + 1), p, i,
                      outer, lo, hi});
  }

  static bool same_terms(const arith::LinearForm& a, const arith::LinearForm& b) {
    if (a.terms.size() != b.terms.size()) return false;
    for (size_t k = 0; k < a.terms.size(); ++k)
      if (!a.terms[k].first.same_as(b.terms[k].first) || a.terms[k].second != b.terms[k].second) return false;
    return true;
  }

  std::vector<Loop> loops_;
};

// The prefetches of one plan, for the top of R's body.
Stmt prefetches(const Plan& plan) {
  const DataType t = plan.outer.dtype;
  auto c = [&](int64_t v) { return int_imm(t, v); };
  const int64_t elem = plan.buffer->dtype.bytes();
  const int64_t lines = ((plan.hi - plan.lo + 1) * elem + kLineBytes - 1) / kLineBytes;
  // g: the iteration of I and the loops down to R, counted from 0.
  auto from_zero = [&](const Loop& l) {
    return l.min == 0 ? Expr(l.node->loop_var) : Expr(l.node->loop_var) - c(l.min);
  };
  Expr g = from_zero(plan.loops[plan.i]);
  int64_t iterations = plan.loops[plan.i].extent;
  for (size_t k = plan.i + 1; k < plan.loops.size(); ++k) {
    g = g * c(plan.loops[k].extent) + from_zero(plan.loops[k]);
    iterations *= plan.loops[k].extent;
  }
  // One line every `step` iterations, or `per` lines every iteration.
  int64_t step = 1;
  while (step * 2 * lines <= iterations) step *= 2;
  const int64_t per = (lines + iterations - 1) / iterations;
  // The next panel: P + 1, or P on P's last iteration.
  const Loop& p = plan.loops[plan.p];
  Expr next_p = min(Expr(p.node->loop_var) + c(1), c(p.min + p.extent - 1));
  Expr index;
  for (const auto& [term, coef] : plan.outer.terms) {
    Expr part = (term.same_as(p.node->loop_var) ? next_p : term) * c(coef);
    index = index.defined() ? index + part : part;
  }
  if (plan.lo != 0) index = index + c(plan.lo);
  const int64_t line_elems = kLineBytes / elem;
  std::vector<Stmt> fetches;
  const Expr first = step > 1 ? floordiv(g, c(step)) : per > 1 ? g * c(per) : g;
  for (int64_t k = 0; k < per; ++k)
    fetches.push_back(prefetch(plan.buffer, {index + (k == 0 ? first : first + c(k)) * c(line_elems)}));
  Expr when;
  if (step > 1) when = eq(floormod(g, c(step)), c(0));
  const int64_t covered = step * ((lines + per - 1) / per);  // the iterations that fetch lines of the panel
  if (covered < iterations) when = when.defined() ? (when && g < c(covered)) : g < c(covered);
  Stmt body = seq(std::move(fetches));
  return when.defined() ? if_then_else(when, body) : body;
}

class Inserter : public StmtMutator {
 public:
  explicit Inserter(const std::map<const ForNode*, std::vector<Plan>>& plans) : plans_(plans) {}

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    Stmt loop = StmtMutator::visit_For(op, s);
    auto it = plans_.find(op);
    if (it == plans_.end()) return loop;
    std::vector<Stmt> body;
    for (const Plan& plan : it->second) body.push_back(prefetches(plan));
    body.push_back(loop.as<ForNode>()->body);
    return with_loop_body(loop, seq(std::move(body)));
  }

 private:
  const std::map<const ForNode*, std::vector<Plan>>& plans_;
};

}  // namespace

PrimFunc prefetch_panels(const PrimFunc& f) {
  Planner planner;
  planner.visit(f.body());
  if (planner.plans.empty()) return f;
  return f.with_body(Inserter(planner.plans).mutate(f.body()));
}

}  // namespace kiln
