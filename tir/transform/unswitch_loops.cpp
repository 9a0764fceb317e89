#include "tir/transform/unswitch_loops.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "core/structural.h"
#include "tir/analysis/code_size.h"
#include "tir/functor.h"

namespace kiln {
namespace {

// The variables `s` binds: its loops' and its lets'.
std::unordered_set<const Object*> bound_vars(const Stmt& s) {
  std::unordered_set<const Object*> out;
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* f = x.as<ForNode>()) out.insert(f->loop_var.get());
    if (const auto* l = x.as<LetStmtNode>()) out.insert(l->var.get());
  });
  return out;
}

// True if `e` reads no buffer, calls nothing and divides only by nonzero
// constants: its value depends only on its variables, and evaluating it
// outside the loop, before any guard inside the loop, is always defined.
bool pure(const Expr& e) {
  bool ok = true;
  auto constant_divisor = [](const Expr& d) {
    const int64_t* v = as_const_int(d);
    return v && *v != 0;
  };
  post_order_visit(e, [&](const Expr& x) {
    if (x.as<BufferLoadNode>() || x.as<CallNode>() || x.as<LetNode>()) ok = false;
    if (const auto* d = x.as<DivNode>()) ok = ok && constant_divisor(d->b);
    if (const auto* d = x.as<ModNode>()) ok = ok && constant_divisor(d->b);
    if (const auto* d = x.as<FloorDivNode>()) ok = ok && constant_divisor(d->b);
    if (const auto* d = x.as<FloorModNode>()) ok = ok && constant_divisor(d->b);
  });
  return ok;
}

// True if `cond` does not change while `loop` runs.
bool invariant(const ForNode* loop, const Expr& cond, const std::unordered_set<const Object*>& bound) {
  return cond.dtype().is_scalar() && pure(cond) &&
         !uses_var(cond, [&](const VarNode* v) { return v == loop->loop_var.get() || bound.count(v) > 0; });
}

// The first condition of an IfThenElse inside `loop` that does not change
// while it runs.
std::optional<Expr> invariant_condition(const ForNode* loop) {
  const std::unordered_set<const Object*> bound = bound_vars(loop->body);
  std::optional<Expr> found;
  post_order_visit(loop->body, [&](const Stmt& x) {
    const auto* i = x.as<IfThenElseNode>();
    if (!found && i && invariant(loop, i->condition, bound)) found = i->condition;
  });
  return found;
}

// `s` with every IfThenElse on `cond` replaced by the branch `value` takes.
class Specializer : public StmtMutator {
 public:
  Specializer(Expr cond, bool value) : cond_(std::move(cond)), value_(value) {}
  using StmtMutator::mutate;

  Stmt visit_IfThenElse(const IfThenElseNode* op, const Stmt& s) override {
    if (!structural_equal(op->condition, cond_)) return StmtMutator::visit_IfThenElse(op, s);
    const Stmt& taken = value_ ? op->then_case : op->else_case;
    return taken.defined() ? mutate(taken) : no_op();
  }
  Stmt visit_SeqStmt(const SeqStmtNode* op, const Stmt&) override {
    std::vector<Stmt> out;
    for (const Stmt& c : op->seq) out.push_back(mutate(c));
    return seq(std::move(out));
  }
  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    return is_no_op(body) ? no_op() : with_loop_body(s, body);
  }

 private:
  Expr cond_;
  bool value_;
};

// `if a and b: s` (no else) as `if a: if b: s`, so that a conjunct the
// loop cannot change moves out while the rest stays (a tile partial in
// two dimensions guards its last row and column with `p < 7 and q < 7`,
// `p` fixed inside the reduction loops, `q` the loop's own). Evaluating
// `b` only where `a` holds is never less defined than both at once.
class ConjunctionSplitter : public StmtMutator {
 public:
  using StmtMutator::mutate;

  Stmt visit_IfThenElse(const IfThenElseNode* op, const Stmt& s) override {
    const auto* both = op->condition.as<AndNode>();
    if (!both || op->else_case.defined()) return StmtMutator::visit_IfThenElse(op, s);
    return mutate(if_then_else(both->a, if_then_else(both->b, op->then_case)));
  }
};

// The converse, where unswitching left both ifs inside: `if a: if b: s`
// as `if a and b: s` when `b` is pure (evaluating it where `a` fails is
// then harmless).
class ConjunctionJoiner : public StmtMutator {
 public:
  using StmtMutator::mutate;

  Stmt visit_IfThenElse(const IfThenElseNode* op, const Stmt& s) override {
    Stmt out = StmtMutator::visit_IfThenElse(op, s);
    const auto* outer = out.as<IfThenElseNode>();
    const auto* inner = outer ? outer->then_case.as<IfThenElseNode>() : nullptr;
    if (!inner || outer->else_case.defined() || inner->else_case.defined() || !pure(inner->condition)) return out;
    return if_then_else(logical_and(outer->condition, inner->condition), inner->then_case);
  }
};

class Unswitcher : public StmtMutator {
 public:
  // `growth`: the statements all unswitching together may add.
  explicit Unswitcher(int64_t growth) : growth_(growth) {}
  using StmtMutator::mutate;

  // True once a condition has moved out of a loop.
  bool moved() const { return moved_; }

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    return unswitch(with_loop_body(s, mutate(op->body)), 2 * kMaxUnswitchStmts);  // inner loops first
  }

 private:
  // `loop` unswitched while its versions together stay within `room`
  // statements: each split halves the room of what it splits.
  Stmt unswitch(const Stmt& loop, int64_t room) {
    const auto* op = loop.as<ForNode>();
    if (!op || op->for_kind != ForKind::kSerial) return loop;
    // An inner loop unswitched already: the IfThenElse moves out as it is.
    if (const auto* i = op->body.as<IfThenElseNode>();
        i && invariant(op, i->condition, bound_vars(op->body))) {
      Stmt then_loop = unswitch(with_loop_body(loop, i->then_case), room);
      Stmt else_loop = i->else_case.defined() ? unswitch(with_loop_body(loop, i->else_case), room) : Stmt();
      moved_ = true;
      return if_then_else(i->condition, then_loop, else_loop);
    }
    const int64_t size = stmt_count(loop);
    if (2 * size > room || size > growth_) return loop;
    std::optional<Expr> cond = invariant_condition(op);
    if (!cond) return loop;
    moved_ = true;
    growth_ -= size;
    Stmt then_loop = unswitch(Specializer(*cond, true).mutate(loop), room / 2);
    Stmt else_loop = unswitch(Specializer(*cond, false).mutate(loop), room / 2);
    return if_then_else(*cond, then_loop, is_no_op(else_loop) ? Stmt() : else_loop);
  }

  bool moved_ = false;
  int64_t growth_;
};

}  // namespace

PrimFunc unswitch_loops(const PrimFunc& f) {
  Stmt split = ConjunctionSplitter().mutate(f.body());
  Unswitcher unswitcher(std::max(2 * kMaxUnswitchStmts, stmt_count(split)));
  Stmt body = unswitcher.mutate(split);
  return unswitcher.moved() ? f.with_body(ConjunctionJoiner().mutate(body)) : f;
}

}  // namespace kiln
