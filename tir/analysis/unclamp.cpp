#include "tir/analysis/unclamp.h"

#include "tir/functor.h"

namespace kiln {
namespace {

class Unclamp : public StmtMutator {
 public:
  using StmtMutator::mutate;

 protected:
  Expr visit_Min(const MinNode* op, const Expr& e) override {
    if (const auto* in = op->a.as<MaxNode>(); in && as_const_int(op->b) && as_const_int(in->b)) return mutate(in->a);
    return StmtMutator::visit_Min(op, e);
  }
  Expr visit_Max(const MaxNode* op, const Expr& e) override {
    if (const auto* in = op->a.as<MinNode>(); in && as_const_int(op->b) && as_const_int(in->b)) return mutate(in->a);
    return StmtMutator::visit_Max(op, e);
  }
};

}  // namespace

Stmt unclamp(const Stmt& s) { return Unclamp().mutate(s); }

}  // namespace kiln
