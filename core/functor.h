// Visiting and rewriting expressions.
//
// ExprVisitor walks a tree; ExprMutator rebuilds it. Both dispatch on the
// node's kind to a virtual visit_<Kind> method generated from the node list in
// core/expr.h, so a new kind needs no edits here. A mutator's default for
// every kind rewrites the node's children and returns the very same node when
// no child changed: passes that change nothing allocate nothing, and callers
// can test "did anything change" with same_as.
#pragma once

#include <functional>

#include "core/expr.h"

namespace kiln {

// Applies fn to every direct object child of `node` (fields holding objects,
// arrays and maps of them) and rebuilds the node if any child changed.
// Returns `node` itself otherwise.
ObjectRef rewrite_children(const ObjectRef& node, RewriteFn fn);

// Calls fn on every direct object child of `node`.
void for_each_child(const Object& node, ChildFn fn);

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  virtual void visit(const Expr& e);

#define X(Name, Sym) virtual void visit_##Name(const Name##Node* op, const Expr& e);
  KILN_FOR_EACH_EXPR(X)
#undef X

 protected:
  // Visits the children of any node, descending into non-expression objects
  // (Range, IterVar) but not into Buffers.
  void visit_children(const Object& node);
  // Called for objects that are neither expressions nor identity nodes and
  // need kind-specific handling (statements in tir). Default: visit children.
  virtual void visit_other(const ObjectRef& o);
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  virtual Expr mutate(const Expr& e);

#define X(Name, Sym) virtual Expr visit_##Name(const Name##Node* op, const Expr& e);
  KILN_FOR_EACH_EXPR(X)
#undef X

 protected:
  // Rewrites the children of any node: expressions through mutate(), other
  // non-identity objects recursively, Vars and Buffers kept.
  ObjectRef mutate_children(const ObjectRef& node);
  virtual ObjectRef mutate_other(const ObjectRef& o);
};

// Replaces variables by expressions (by identity). Vars not in the map stay.
Expr substitute(const Expr& e, const std::function<Expr(const Var&)>& fn);
Expr substitute(const Expr& e, const std::vector<std::pair<Var, Expr>>& map);

// Calls fn for every node of an expression tree, children before parents.
void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& fn);

// True if any Var for which pred returns true occurs in e.
bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred);
bool uses_var(const Expr& e, const Var& v);

}  // namespace kiln
