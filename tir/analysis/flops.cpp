#include "tir/analysis/flops.h"

#include "tir/functor.h"

namespace kiln {
namespace {

bool is_arith(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Min:
    case ExprKind::Max: return true;
    default: return false;
  }
}

bool is_float_arith(const Expr& e) { return e.dtype().is_float() && is_arith(e); }

// The integer arithmetic on loaded data in `e` (an int8 product's widened
// multiply-adds), added to `ops`: an integer operation one of whose
// operands reads a buffer. Index arithmetic reads none (a load's indices
// are not visited, nor a select's condition: padding). Returns whether `e`
// reads a buffer.
bool integer_ops_on_data(const Expr& e, double& ops) {
  if (e.as<BufferLoadNode>()) return true;
  if (const auto* c = e.as<CastNode>()) return integer_ops_on_data(c->value, ops);
  if (const auto* s = e.as<SelectNode>()) {
    const bool t = integer_ops_on_data(s->true_value, ops);
    return integer_ops_on_data(s->false_value, ops) || t;
  }
  if (const auto* c = e.as<CallNode>()) {
    bool reads = false;
    for (const Expr& a : c->args) reads = integer_ops_on_data(a, ops) || reads;
    return reads;
  }
  if (BinaryOperands b = binary_operands(e)) {
    const bool ra = integer_ops_on_data(*b.a, ops);
    const bool reads = integer_ops_on_data(*b.b, ops) || ra;
    if (reads && (e.dtype().is_int() || e.dtype().is_uint()) && is_arith(e)) ops += 1;
    return reads;
  }
  return false;
}

// What is counted: a leaf statement (a store, an evaluation) costs what
// `leaf` says, times the iterations of the loops around it; a loop's own
// steps count when `loop_steps`, a block's init when `with_init`.
template <typename Leaf>
struct Measure {
  bool with_init, loop_steps;
  Leaf leaf;
};

template <typename Leaf>
double count(const Stmt& s, double iterations, const Measure<Leaf>& m) {
  const auto recurse = [&](const Stmt& c, double it) { return count(c, it, m); };
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* f = s.as<ForNode>();
      const int64_t* ext = as_const_int(f->extent);
      const double inner = iterations * (ext ? static_cast<double>(*ext) : 1.0);
      return (m.loop_steps ? inner : 0.0) + recurse(f->body, inner);
    }
    case StmtKind::SeqStmt: {
      double total = 0;
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) total += recurse(c, iterations);
      return total;
    }
    case StmtKind::BlockRealize: return recurse(s.as<BlockRealizeNode>()->block, iterations);
    case StmtKind::Block: {
      const auto* b = s.as<BlockNode>();
      const double init = m.with_init && b->init.defined() ? recurse(b->init, iterations) : 0.0;
      return init + recurse(b->body, iterations);
    }
    case StmtKind::IfThenElse: {
      // Both branches: an upper bound, which one runs is not known here.
      const auto* op = s.as<IfThenElseNode>();
      return recurse(op->then_case, iterations) + (op->else_case.defined() ? recurse(op->else_case, iterations) : 0.0);
    }
    case StmtKind::LetStmt: return recurse(s.as<LetStmtNode>()->body, iterations);
    case StmtKind::Allocate: return recurse(s.as<AllocateNode>()->body, iterations);
    default: return m.leaf(s) * iterations;
  }
}

}  // namespace

double estimate_flops(const PrimFunc& f) {
  const auto float_ops = [](const Stmt& s) {
    double ops = 0;
    visit_exprs(s, [&](const Expr& e) { ops += is_float_arith(e); });
    if (const auto* st = s.as<BufferStoreNode>()) integer_ops_on_data(st->value, ops);
    return ops;
  };
  return count(f.body(), 1.0, Measure<decltype(float_ops)>{false, false, float_ops});
}

double estimate_steps(const PrimFunc& f) {
  const auto one = [](const Stmt&) { return 1.0; };
  return count(f.body(), 1.0, Measure<decltype(one)>{true, true, one});
}

}  // namespace kiln
