#include "tir/replace_stmt.h"

#include "tir/functor.h"

namespace kiln {
namespace {

class Replacer : public StmtMutator {
 public:
  Replacer(const Stmt& target, const Stmt& replacement) : target_(target), replacement_(replacement) {}
  using StmtMutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (s.same_as(target_)) return replacement_;
    return StmtMutator::mutate(s);
  }
  // A sequence put in a sequence's place is spliced in, and a no-op put
  // there disappears, so replacing keeps sequences flat.
  Stmt visit_SeqStmt(const SeqStmtNode* op, const Stmt& s) override { return mutate_seq_flattened(op, s); }
  // Expressions never hold statements: skip them.
  Expr mutate(const Expr& e) override { return e; }

 private:
  const Stmt& target_;
  const Stmt& replacement_;
};

}  // namespace

Stmt replace_stmt(const Stmt& root, const Stmt& target, const Stmt& replacement) {
  return Replacer(target, replacement).mutate(root);
}

}  // namespace kiln
