#include "tir/functor.h"

namespace kiln {

void StmtVisitor::visit(const Stmt& s) {
  switch (s.kind()) {
#define X(Name)                                                 \
  case StmtKind::Name:                                          \
    visit_##Name(static_cast<const Name##Node*>(s.get()), s);   \
    break;
    KILN_FOR_EACH_STMT(X)
#undef X
  }
}

#define X(Name) \
  void StmtVisitor::visit_##Name(const Name##Node* op, const Stmt&) { visit_children(*op); }
KILN_FOR_EACH_STMT(X)
#undef X

void StmtVisitor::visit_other(const ObjectRef& o) {
  if (o.as<StmtNode>()) {
    visit(Stmt(o.ptr()));
  } else {
    visit_children(*o.get());
  }
}

Stmt StmtMutator::mutate(const Stmt& s) {
  switch (s.kind()) {
#define X(Name) \
  case StmtKind::Name: return visit_##Name(static_cast<const Name##Node*>(s.get()), s);
    KILN_FOR_EACH_STMT(X)
#undef X
  }
  return s;
}

#define X(Name) \
  Stmt StmtMutator::visit_##Name(const Name##Node*, const Stmt& s) { return Stmt(mutate_children(s).ptr()); }
KILN_FOR_EACH_STMT(X)
#undef X

ObjectRef StmtMutator::mutate_other(const ObjectRef& o) {
  if (o.as<StmtNode>()) return mutate(Stmt(o.ptr()));
  return mutate_children(o);
}

namespace {

class StmtSubstituter : public StmtMutator {
 public:
  explicit StmtSubstituter(const std::function<Expr(const Var&)>& fn) : fn_(fn) {}
  Expr visit_Var(const VarNode*, const Expr& e) override {
    Expr r = fn_(Var(e.ptr()));
    return r.defined() ? r : e;
  }

 private:
  const std::function<Expr(const Var&)>& fn_;
};

class StmtPostOrder : public StmtVisitor {
 public:
  StmtPostOrder(const std::function<void(const Stmt&)>* sf, const std::function<void(const Expr&)>* ef)
      : sf_(sf), ef_(ef) {}
  using StmtVisitor::visit;
  void visit(const Stmt& s) override {
    StmtVisitor::visit(s);
    if (sf_) (*sf_)(s);
  }
  void visit(const Expr& e) override {
    // Expressions hold no statements: a walk for statements skips them.
    if (!ef_) return;
    StmtVisitor::visit(e);
    (*ef_)(e);
  }

 private:
  const std::function<void(const Stmt&)>* sf_;
  const std::function<void(const Expr&)>* ef_;
};

}  // namespace

Stmt substitute(const Stmt& s, const std::function<Expr(const Var&)>& fn) { return StmtSubstituter(fn).mutate(s); }

Stmt substitute(const Stmt& s, const std::vector<std::pair<Var, Expr>>& map) {
  if (map.empty()) return s;
  return substitute(s, [&](const Var& v) -> Expr {
    for (const auto& [k, val] : map)
      if (k.same_as(v)) return val;
    return Expr();
  });
}

void post_order_visit(const Stmt& s, const std::function<void(const Stmt&)>& fn) { StmtPostOrder(&fn, nullptr).visit(s); }

void visit_exprs(const Stmt& s, const std::function<void(const Expr&)>& fn) { StmtPostOrder(nullptr, &fn).visit(s); }

void for_each_block(const Stmt& s, FunctionRef<void(const BlockNode*)> fn) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case StmtKind::For: for_each_block(s.as<ForNode>()->body, fn); break;
    case StmtKind::SeqStmt:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) for_each_block(c, fn);
      break;
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      for_each_block(op->then_case, fn);
      for_each_block(op->else_case, fn);
      break;
    }
    case StmtKind::LetStmt: for_each_block(s.as<LetStmtNode>()->body, fn); break;
    case StmtKind::Allocate: for_each_block(s.as<AllocateNode>()->body, fn); break;
    case StmtKind::BlockRealize: for_each_block(s.as<BlockRealizeNode>()->block, fn); break;
    case StmtKind::Block: {
      const auto* b = s.as<BlockNode>();
      for_each_block(b->init, fn);
      for_each_block(b->body, fn);
      fn(b);
      break;
    }
    case StmtKind::BufferStore:
    case StmtKind::Evaluate:
    case StmtKind::Barrier:
    case StmtKind::Prefetch: break;
  }
}

Stmt StmtMutator::mutate_seq_flattened(const SeqStmtNode* op, const Stmt& s) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& c : op->seq) {
    out.push_back(mutate(c));
    changed |= !out.back().same_as(c);
  }
  return changed ? seq(std::move(out)) : s;
}

}  // namespace kiln
