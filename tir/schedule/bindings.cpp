#include "tir/schedule/bindings.h"

#include "core/arith/analyzer.h"
#include "tir/functor.h"

namespace kiln {
namespace {

class BindingSimplifier : public StmtMutator {
 public:
  explicit BindingSimplifier(const std::vector<Var>& changed) : changed_(changed) {}
  using StmtMutator::mutate;

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    ana_.bind(op->loop_var, Range(op->min, op->extent));
    Stmt body = mutate(op->body);
    ana_.unbind(op->loop_var);
    return with_loop_body(s, body);
  }

  Stmt visit_BlockRealize(const BlockRealizeNode* op, const Stmt& s) override {
    std::vector<Expr> values;
    bool changed = false;
    for (const Expr& v : op->iter_values) {
      values.push_back(simplify(v));
      changed |= !values.back().same_as(v);
    }
    Expr pred = simplify(op->predicate);
    if (!changed && pred.same_as(op->predicate)) return s;
    return block_realize(std::move(values), pred, op->block);
  }

  // Expressions outside block bindings are left as they are.
  Expr mutate(const Expr& e) override { return e; }

 private:
  // Only what names a changed loop: the rest was simplified when it was
  // made, under the same ranges.
  Expr simplify(const Expr& e) {
    const bool touched = uses_var(e, [&](const VarNode* v) {
      for (const Var& c : changed_)
        if (c.get() == v) return true;
      return false;
    });
    return touched ? ana_.simplify(e) : e;
  }

  const std::vector<Var>& changed_;
  arith::Analyzer ana_;
};

class LoopVarSubstituter : public StmtMutator {
 public:
  explicit LoopVarSubstituter(const std::vector<std::pair<Var, Expr>>& map) : map_(map) {}
  using StmtMutator::mutate;

  Stmt visit_Block(const BlockNode*, const Stmt& s) override { return s; }
  Expr visit_Var(const VarNode* op, const Expr& e) override {
    for (const auto& [from, to] : map_)
      if (from.get() == op) return to;
    return e;
  }

 private:
  const std::vector<std::pair<Var, Expr>>& map_;
};

class PredicateAdder : public StmtMutator {
 public:
  explicit PredicateAdder(Expr cond) : cond_(std::move(cond)) {}
  using StmtMutator::mutate;

  Stmt visit_BlockRealize(const BlockRealizeNode* op, const Stmt&) override {
    Expr pred = is_const_int(op->predicate, 1) ? cond_ : logical_and(op->predicate, cond_);
    return block_realize(op->iter_values, pred, op->block);
  }

 private:
  Expr cond_;
};

}  // namespace

Stmt simplify_bindings(const Stmt& s, const std::vector<Var>& changed) { return BindingSimplifier(changed).mutate(s); }
Stmt substitute_loop_vars(const Stmt& s, const std::vector<std::pair<Var, Expr>>& map) {
  return map.empty() ? s : LoopVarSubstituter(map).mutate(s);
}
Stmt add_predicate(const Stmt& s, const Expr& cond) { return PredicateAdder(cond).mutate(s); }

}  // namespace kiln
