#include "core/functor.h"

namespace kiln {

ObjectRef rewrite_children(const ObjectRef& node, RewriteFn fn) {
  ObjectPtr changed = node.get()->rewrite_children(fn);
  return changed ? ObjectRef(std::move(changed)) : node;
}

void for_each_child(const Object& node, ChildFn fn) { node.for_each_child(fn); }

// ---------------------------------------------------------------------------

void ExprVisitor::visit(const Expr& e) {
  switch (e.kind()) {
#define X(Name, Sym)                                              \
  case ExprKind::Name:                                            \
    visit_##Name(static_cast<const Name##Node*>(e.get()), e);     \
    break;
    KILN_FOR_EACH_EXPR(X)
#undef X
  }
}

#define X(Name, Sym) \
  void ExprVisitor::visit_##Name(const Name##Node* op, const Expr&) { visit_children(*op); }
KILN_FOR_EACH_EXPR(X)
#undef X

void ExprVisitor::visit_children(const Object& node) {
  for_each_child(node, [this](const ObjectRef& c) {
    if (c.as<ExprNode>()) {
      visit(Expr(c.ptr()));
    } else if (!c.get()->has_identity()) {
      visit_other(c);
    }
  });
}

void ExprVisitor::visit_other(const ObjectRef& o) { visit_children(*o.get()); }

// ---------------------------------------------------------------------------

Expr ExprMutator::mutate(const Expr& e) {
  switch (e.kind()) {
#define X(Name, Sym) \
  case ExprKind::Name: return visit_##Name(static_cast<const Name##Node*>(e.get()), e);
    KILN_FOR_EACH_EXPR(X)
#undef X
  }
  return e;
}

#define X(Name, Sym) \
  Expr ExprMutator::visit_##Name(const Name##Node*, const Expr& e) { return Expr(mutate_children(e).ptr()); }
KILN_FOR_EACH_EXPR(X)
#undef X

ObjectRef ExprMutator::mutate_children(const ObjectRef& node) {
  return rewrite_children(node, [this](const ObjectRef& c) -> ObjectRef {
    if (c.as<ExprNode>()) return mutate(Expr(c.ptr()));
    if (c.get()->has_identity()) return c;
    return mutate_other(c);
  });
}

ObjectRef ExprMutator::mutate_other(const ObjectRef& o) { return mutate_children(o); }

// ---------------------------------------------------------------------------

namespace {

class Substituter : public ExprMutator {
 public:
  explicit Substituter(const std::function<Expr(const Var&)>& fn) : fn_(fn) {}
  Expr visit_Var(const VarNode*, const Expr& e) override {
    Expr r = fn_(Var(e.ptr()));
    return r.defined() ? r : e;
  }

 private:
  const std::function<Expr(const Var&)>& fn_;
};

class PostOrder : public ExprVisitor {
 public:
  explicit PostOrder(const std::function<void(const Expr&)>& fn) : fn_(fn) {}
  void visit(const Expr& e) override {
    ExprVisitor::visit(e);
    fn_(e);
  }

 private:
  const std::function<void(const Expr&)>& fn_;
};

}  // namespace

Expr substitute(const Expr& e, const std::function<Expr(const Var&)>& fn) { return Substituter(fn).mutate(e); }

Expr substitute(const Expr& e, const std::vector<std::pair<Var, Expr>>& map) {
  if (map.empty()) return e;
  return substitute(e, [&](const Var& v) -> Expr {
    for (const auto& [k, val] : map)
      if (k.same_as(v)) return val;
    return Expr();
  });
}

void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& fn) { PostOrder(fn).visit(e); }

bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred) {
  bool found = false;
  post_order_visit(e, [&](const Expr& n) {
    if (const auto* v = n.as<VarNode>(); v && pred(v)) found = true;
  });
  return found;
}

bool uses_var(const Expr& e, const Var& v) {
  return uses_var(e, [&](const VarNode* n) { return n == v.get(); });
}

}  // namespace kiln
