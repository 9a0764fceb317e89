// Visiting and rewriting statements (and the expressions inside them).
//
// StmtVisitor/StmtMutator extend the expression visitor/mutator: one object
// walks a whole PrimFunc body. Dispatch is by StmtKind to visit_<Kind>; the
// default for each kind recurses into the children, and a mutator returns the
// same node when nothing below it changed.
#pragma once

#include "core/functor.h"
#include "core/function_ref.h"
#include "tir/stmt.h"

namespace kiln {

class StmtVisitor : public ExprVisitor {
 public:
  using ExprVisitor::visit;
  virtual void visit(const Stmt& s);

#define X(Name) virtual void visit_##Name(const Name##Node* op, const Stmt& s);
  KILN_FOR_EACH_STMT(X)
#undef X

 protected:
  void visit_other(const ObjectRef& o) override;
};

class StmtMutator : public ExprMutator {
 public:
  using ExprMutator::mutate;
  virtual Stmt mutate(const Stmt& s);

#define X(Name) virtual Stmt visit_##Name(const Name##Node* op, const Stmt& s);
  KILN_FOR_EACH_STMT(X)
#undef X

 protected:
  ObjectRef mutate_other(const ObjectRef& o) override;
  // The sequence's statements mutated and, if one changed, the sequence
  // rebuilt by seq(): a statement that became a sequence is spliced in, one
  // that became a no-op dropped. What a mutator that turns statements into
  // sequences returns from visit_SeqStmt, so that its output stays flat.
  Stmt mutate_seq_flattened(const SeqStmtNode* op, const Stmt& s);
};

// Substitutes variables (by identity) in a statement.
Stmt substitute(const Stmt& s, const std::vector<std::pair<Var, Expr>>& map);
Stmt substitute(const Stmt& s, const std::function<Expr(const Var&)>& fn);

// Calls fn on every statement, children before parents.
void post_order_visit(const Stmt& s, const std::function<void(const Stmt&)>& fn);
// Calls fn on every expression inside s (at every depth).
void visit_exprs(const Stmt& s, const std::function<void(const Expr&)>& fn);
// Calls fn on every Block under s (s included), inner blocks before the
// blocks that hold them: a walk of the statements alone, the cheap way to
// ask about blocks (who reads a buffer) in a legality check.
void for_each_block(const Stmt& s, FunctionRef<void(const BlockNode*)> fn);

}  // namespace kiln
