#include "tir/transform/simplify.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "core/arith/analyzer.h"
#include "core/structural.h"
#include "tir/functor.h"

namespace kiln {
namespace {

// Binds a variable for the lifetime of a scope, then restores what was known
// before (an enclosing binding of the same variable, or nothing).
class ScopedBinding {
 public:
  ScopedBinding(arith::Analyzer& ana, const Var& v, const Range& r) : ana_(ana), var_(v), saved_(ana.binding(v)) {
    ana_.bind(v, r);
  }
  ScopedBinding(arith::Analyzer& ana, const Var& v, arith::IntBound b) : ana_(ana), var_(v), saved_(ana.binding(v)) {
    ana_.bind(v, b);
  }
  ~ScopedBinding() {
    if (saved_) ana_.bind(var_, *saved_);
    else ana_.unbind(var_);
  }
  ScopedBinding(const ScopedBinding&) = delete;
  ScopedBinding& operator=(const ScopedBinding&) = delete;

 private:
  arith::Analyzer& ana_;
  Var var_;
  std::optional<arith::IntBound> saved_;
};

// What a condition says about single variables: `v < c`, `v > c`, `v == c`
// (and <=, >=), and conjunctions of these when the condition is known true.
// Each entry narrows v's current bound.
class Facts {
 public:
  Facts(arith::Analyzer& ana, const Expr& cond, bool holds) : ana_(ana) { collect(cond, holds); }

  // Binds the narrowed bounds while alive.
  std::vector<std::unique_ptr<ScopedBinding>> assume() const {
    std::vector<std::unique_ptr<ScopedBinding>> scopes;
    for (const auto& [v, b] : narrowed_) scopes.push_back(std::make_unique<ScopedBinding>(ana_, v, b));
    return scopes;
  }

 private:
  void collect(const Expr& cond, bool holds) {
    if (const auto* n = cond.as<AndNode>()) {
      if (holds) {
        collect(n->a, true);
        collect(n->b, true);
      }
      return;
    }
    if (const auto* n = cond.as<OrNode>()) {
      if (!holds) {
        collect(n->a, false);
        collect(n->b, false);
      }
      return;
    }
    if (const auto* n = cond.as<NotNode>()) return collect(n->a, !holds);
    ExprKind k = cond.kind();
    auto [a, b] = binary_operands(cond);
    if (!is_comparison(k)) return;
    if (!holds) k = negate(k);
    if (a->as<VarNode>() && as_const_int(*b)) {
      narrow(Var(a->ptr()), k, *as_const_int(*b));
    } else if (b->as<VarNode>() && as_const_int(*a)) {
      narrow(Var(b->ptr()), swap(k), *as_const_int(*a));
    }
  }

  static ExprKind negate(ExprKind k) {
    switch (k) {
      case ExprKind::LT: return ExprKind::GE;
      case ExprKind::LE: return ExprKind::GT;
      case ExprKind::GT: return ExprKind::LE;
      case ExprKind::GE: return ExprKind::LT;
      case ExprKind::EQ: return ExprKind::NE;
      default: return ExprKind::EQ;
    }
  }
  static ExprKind swap(ExprKind k) {
    switch (k) {
      case ExprKind::LT: return ExprKind::GT;
      case ExprKind::LE: return ExprKind::GE;
      case ExprKind::GT: return ExprKind::LT;
      case ExprKind::GE: return ExprKind::LE;
      default: return k;
    }
  }

  // v k c holds.
  void narrow(const Var& v, ExprKind k, int64_t c) {
    if (!v.dtype().is_int() || !v.dtype().is_scalar()) return;
    arith::IntBound b = ana_.const_int_bound(v);
    for (const auto& [u, ub] : narrowed_)
      if (u.same_as(v)) b = ub;
    switch (k) {
      case ExprKind::LT:
        if (c == arith::IntBound::kNegInf) return;
        b.max = std::min(b.max, c - 1);
        break;
      case ExprKind::LE: b.max = std::min(b.max, c); break;
      case ExprKind::GT:
        if (c == arith::IntBound::kPosInf) return;
        b.min = std::max(b.min, c + 1);
        break;
      case ExprKind::GE: b.min = std::max(b.min, c); break;
      case ExprKind::EQ: b = {std::max(b.min, c), std::min(b.max, c)}; break;
      default: return;
    }
    // A contradiction means the branch never runs; keep what was known.
    if (b.min > b.max) return;
    std::erase_if(narrowed_, [&](const auto& vb) { return vb.first.same_as(v); });
    narrowed_.emplace_back(v, b);
  }

  arith::Analyzer& ana_;
  std::vector<std::pair<Var, arith::IntBound>> narrowed_;
};

class StmtSimplifier : public StmtMutator {
 public:
  using StmtMutator::mutate;
  Expr mutate(const Expr& e) override { return ana_.simplify(e); }

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    Expr min = mutate(op->min);
    Expr extent = mutate(op->extent);
    if (const int64_t* ext = as_const_int(extent)) {
      if (*ext <= 0) return no_op();
      if (*ext == 1 && op->for_kind != ForKind::kThreadBinding)
        return mutate(substitute(op->body, {{op->loop_var, min}}));
    }
    Stmt body;
    {
      ScopedBinding scope(ana_, op->loop_var, Range(min, extent));
      body = mutate(op->body);
    }
    if (is_no_op(body)) return no_op();
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return s;
    return for_loop(op->loop_var, min, extent, op->for_kind, body, op->thread_tag, op->annotations);
  }

  // A store of an element's own value changes nothing: what is left of an
  // update whose added term unswitching found to be zero (a padded
  // input's border, x[i] = x[i] + w * 0), which would otherwise keep a
  // loop nest that does nothing.
  Stmt visit_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    Stmt r = StmtMutator::visit_BufferStore(op, s);
    const auto* st = r.as<BufferStoreNode>();
    const auto* load = st->value.as<BufferLoadNode>();
    if (!load || !load->buffer.same_as(st->buffer) || load->indices.size() != st->indices.size()) return r;
    for (size_t d = 0; d < st->indices.size(); ++d)
      if (!structural_equal(load->indices[d], st->indices[d])) return r;
    return no_op();
  }

  Stmt visit_IfThenElse(const IfThenElseNode* op, const Stmt& s) override {
    Expr cond = mutate(op->condition);
    if (const int64_t* c = as_const_int(cond)) {
      if (*c) return mutate(op->then_case);
      return op->else_case.defined() ? mutate(op->else_case) : no_op();
    }
    Stmt then_case, else_case;
    {
      auto scopes = Facts(ana_, cond, true).assume();
      then_case = mutate(op->then_case);
    }
    if (op->else_case.defined()) {
      auto scopes = Facts(ana_, cond, false).assume();
      else_case = mutate(op->else_case);
    }
    if (else_case.defined() && is_no_op(else_case)) else_case = Stmt();
    if (is_no_op(then_case) && !else_case.defined()) return no_op();
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case))
      return s;
    return if_then_else(cond, then_case, else_case);
  }

  Stmt visit_LetStmt(const LetStmtNode* op, const Stmt& s) override {
    Expr value = mutate(op->value);
    Stmt body;
    {
      ScopedBinding scope(ana_, op->var, ana_.const_int_bound(value));
      body = mutate(op->body);
    }
    if (value.same_as(op->value) && body.same_as(op->body)) return s;
    return let_stmt(op->var, value, body);
  }

  Stmt visit_Block(const BlockNode* op, const Stmt& s) override {
    std::vector<std::unique_ptr<ScopedBinding>> scopes;
    for (const IterVar& iv : op->iter_vars)
      scopes.push_back(std::make_unique<ScopedBinding>(ana_, iv.var(), iv.dom()));
    Stmt r = StmtMutator::visit_Block(op, s);
    while (!scopes.empty()) scopes.pop_back();  // innermost first
    return r;
  }

  Stmt visit_SeqStmt(const SeqStmtNode* op, const Stmt& s) override { return mutate_seq_flattened(op, s); }

 private:
  arith::Analyzer ana_;
};

}  // namespace

Stmt simplify_stmt(const Stmt& s) { return StmtSimplifier().mutate(s); }

PrimFunc simplify(const PrimFunc& f) {
  Stmt body = simplify_stmt(f.body());
  return f.with_body(body);
}

}  // namespace kiln
