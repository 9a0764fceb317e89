#include "core/functor.h"

namespace kiln {

namespace {

// Maps fn over the object children inside one field value; true if any changed.
bool rewrite_value(FieldValue& v, const std::function<ObjectRef(const ObjectRef&)>& fn) {
  if (auto* r = std::get_if<ObjectRef>(&v.v)) {
    if (!r->defined()) return false;
    ObjectRef n = fn(*r);
    if (n.same_as(*r)) return false;
    *r = std::move(n);
    return true;
  }
  if (auto* a = std::get_if<FieldValue::Array>(&v.v)) {
    bool changed = false;
    for (FieldValue& e : *a) changed |= rewrite_value(e, fn);
    return changed;
  }
  return false;
}

void visit_value(const FieldValue& v, const std::function<void(const ObjectRef&)>& fn) {
  if (const auto* r = std::get_if<ObjectRef>(&v.v)) {
    if (r->defined()) fn(*r);
  } else if (const auto* a = std::get_if<FieldValue::Array>(&v.v)) {
    for (const FieldValue& e : *a) visit_value(e, fn);
  }
}

}  // namespace

ObjectRef rewrite_children(const ObjectRef& node, const std::function<ObjectRef(const ObjectRef&)>& fn) {
  std::vector<FieldValue> fields;
  node.get()->write_fields(fields);
  bool changed = false;
  for (FieldValue& f : fields) changed |= rewrite_value(f, fn);
  if (!changed) return node;
  return ObjectRef(rebuild_node(*node.get(), fields));
}

void for_each_child(const Object& node, const std::function<void(const ObjectRef&)>& fn) {
  std::vector<FieldValue> fields;
  node.write_fields(fields);
  for (const FieldValue& f : fields) visit_value(f, fn);
}

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
