#include "tir/schedule/locate.h"

#include "tir/functor.h"

namespace kiln {
namespace {

// Calls fn on each statement directly inside `s`, in order, until it
// returns true; says whether it did. Nothing is copied: primitives resolve
// a handle per call, and the search replays millions of them.
template <typename F>
bool any_child(const Stmt& s, F&& fn) {
  switch (s.kind()) {
    case StmtKind::For: return fn(s.as<ForNode>()->body);
    case StmtKind::SeqStmt:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq)
        if (fn(c)) return true;
      return false;
    case StmtKind::IfThenElse: {
      const auto* n = s.as<IfThenElseNode>();
      return fn(n->then_case) || fn(n->else_case);
    }
    case StmtKind::LetStmt: return fn(s.as<LetStmtNode>()->body);
    case StmtKind::Allocate: return fn(s.as<AllocateNode>()->body);
    case StmtKind::Block: {
      const auto* n = s.as<BlockNode>();
      return fn(n->init) || fn(n->body);
    }
    case StmtKind::BlockRealize: return fn(s.as<BlockRealizeNode>()->block);
    default: return false;
  }
}

// Depth-first search over statements for the first that `match`es, keeping
// the path from the root as addresses; copied into a Located once found.
template <typename Match>
class PathFinder {
 public:
  explicit PathFinder(const Match& match) : match_(match) {}

  std::optional<Located> find(const Stmt& root) {
    if (!search(root)) return std::nullopt;
    Located loc;
    loc.stmt = *path_.back();
    path_.pop_back();
    loc.ancestors.reserve(path_.size());
    for (const Stmt* s : path_) loc.ancestors.push_back(*s);
    return loc;
  }

 private:
  bool search(const Stmt& s) {
    if (!s.defined()) return false;
    path_.push_back(&s);
    if (match_(s) || any_child(s, [this](const Stmt& c) { return search(c); })) return true;
    path_.pop_back();
    return false;
  }

  const Match& match_;
  std::vector<const Stmt*> path_;
};

template <typename Match>
std::optional<Located> find_path(const Stmt& root, const Match& match) {
  return PathFinder<Match>(match).find(root);
}

}  // namespace

std::optional<Located> locate_block(const Stmt& root, const std::string& name) {
  return find_path(root, [&](const Stmt& s) {
    const auto* r = s.as<BlockRealizeNode>();
    return r && r->block.as<BlockNode>()->name == name;
  });
}

std::optional<Located> locate_loop(const Stmt& root, const Var& loop_var) {
  return find_path(root, [&](const Stmt& s) {
    const auto* f = s.as<ForNode>();
    return f && f->loop_var.same_as(loop_var);
  });
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
  auto walk = [&](const auto& self, const Stmt& x) -> bool {
    if (!x.defined()) return false;
    if (x.kind() == StmtKind::BlockRealize) {
      out.push_back(x);
      return false;
    }
    return any_child(x, [&](const Stmt& c) { return self(self, c); });
  };
  walk(walk, s);
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
