#include "tir/analysis/flops.h"

#include "tir/functor.h"

namespace kiln {
namespace {

bool is_float_arith(const Expr& e) {
  if (!e.dtype().is_float()) return false;
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

double count(const Stmt& s, double iterations) {
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* f = s.as<ForNode>();
      const int64_t* ext = as_const_int(f->extent);
      return count(f->body, iterations * (ext ? static_cast<double>(*ext) : 1.0));
    }
    case StmtKind::SeqStmt: {
      double total = 0;
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) total += count(c, iterations);
      return total;
    }
    case StmtKind::BlockRealize: return count(s.as<BlockRealizeNode>()->block, iterations);
    case StmtKind::Block: return count(s.as<BlockNode>()->body, iterations);  // the init is not counted
    case StmtKind::IfThenElse: {
      // Both branches: an upper bound, which one runs is not known here.
      const auto* op = s.as<IfThenElseNode>();
      return count(op->then_case, iterations) + (op->else_case.defined() ? count(op->else_case, iterations) : 0.0);
    }
    case StmtKind::LetStmt: return count(s.as<LetStmtNode>()->body, iterations);
    case StmtKind::Allocate: return count(s.as<AllocateNode>()->body, iterations);
    default: {
      double ops = 0;
      visit_exprs(s, [&](const Expr& e) { ops += is_float_arith(e); });
      return ops * iterations;
    }
  }
}

}  // namespace

double estimate_flops(const PrimFunc& f) { return count(f.body(), 1.0); }

}  // namespace kiln
