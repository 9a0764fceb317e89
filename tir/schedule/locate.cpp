#include "tir/schedule/locate.h"

#include <functional>

#include "tir/functor.h"

namespace kiln {
namespace {

// The statements directly inside `s`.
std::vector<Stmt> children(const Stmt& s) {
  switch (s.kind()) {
    case StmtKind::For: return {s.as<ForNode>()->body};
    case StmtKind::SeqStmt: return s.as<SeqStmtNode>()->seq;
    case StmtKind::IfThenElse: {
      const auto* n = s.as<IfThenElseNode>();
      return {n->then_case, n->else_case};
    }
    case StmtKind::LetStmt: return {s.as<LetStmtNode>()->body};
    case StmtKind::Allocate: return {s.as<AllocateNode>()->body};
    case StmtKind::Block: {
      const auto* n = s.as<BlockNode>();
      return {n->init, n->body};
    }
    case StmtKind::BlockRealize: return {s.as<BlockRealizeNode>()->block};
    default: return {};
  }
}

// Depth-first search over statements, keeping the path from the root.
class PathFinder {
 public:
  explicit PathFinder(std::function<bool(const Stmt&)> match) : match_(std::move(match)) {}

  std::optional<Located> find(const Stmt& root) {
    if (!search(root)) return std::nullopt;
    Located loc;
    loc.stmt = path_.back();
    path_.pop_back();
    loc.ancestors = std::move(path_);
    return loc;
  }

 private:
  bool search(const Stmt& s) {
    if (!s.defined()) return false;
    path_.push_back(s);
    if (match_(s)) return true;
    for (const Stmt& c : children(s))
      if (search(c)) return true;
    path_.pop_back();
    return false;
  }

  std::function<bool(const Stmt&)> match_;
  std::vector<Stmt> path_;
};

}  // namespace

std::optional<Located> locate_block(const Stmt& root, const std::string& name) {
  return PathFinder([&](const Stmt& s) {
           const auto* r = s.as<BlockRealizeNode>();
           return r && r->block.as<BlockNode>()->name == name;
         }).find(root);
}

std::optional<Located> locate_loop(const Stmt& root, const Var& loop_var) {
  return PathFinder([&](const Stmt& s) {
           const auto* f = s.as<ForNode>();
           return f && f->loop_var.same_as(loop_var);
         }).find(root);
}

const BlockNode* block_of(const Stmt& realize) {
  const auto* r = realize.as<BlockRealizeNode>();
  KILN_ICHECK(r) << "expected a BlockRealize, got " << stmt_kind_name(realize.kind());
  return r->block.as<BlockNode>();
}

std::vector<Stmt> enclosing_loops(const Located& loc) {
  std::vector<Stmt> loops;
  for (auto it = loc.ancestors.rbegin(); it != loc.ancestors.rend(); ++it) {
    if (it->kind() == StmtKind::Block || it->kind() == StmtKind::BlockRealize) break;
    if (it->kind() == StmtKind::For) loops.insert(loops.begin(), *it);
  }
  return loops;
}

std::vector<Stmt> child_block_realizes(const Stmt& s) {
  std::vector<Stmt> out;
  std::function<void(const Stmt&)> walk = [&](const Stmt& x) {
    if (!x.defined()) return;
    if (x.kind() == StmtKind::BlockRealize) return out.push_back(x);
    for (const Stmt& c : children(x)) walk(c);
  };
  walk(s);
  return out;
}

std::vector<std::string> block_names(const Stmt& root) {
  std::vector<std::string> names;
  post_order_visit(root, [&](const Stmt& s) {
    if (const auto* b = s.as<BlockNode>()) names.push_back(b->name);
  });
  return names;
}

}  // namespace kiln
