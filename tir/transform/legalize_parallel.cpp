#include "tir/transform/legalize_parallel.h"

#include "tir/functor.h"

namespace kiln {
namespace {

class NestedParallel : public StmtMutator {
 public:
  using StmtMutator::mutate;

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    bool parallel = op->for_kind == ForKind::kParallel;
    ForKind kind = parallel && depth_ > 0 ? ForKind::kSerial : op->for_kind;
    depth_ += parallel;
    Stmt body = mutate(op->body);
    depth_ -= parallel;
    return with_loop_body(s, kind, body);
  }

 private:
  int depth_ = 0;
};

}  // namespace

PrimFunc serialize_nested_parallel(const PrimFunc& f) {
  Stmt body = NestedParallel().mutate(f.body());
  return f.with_body(body);
}

}  // namespace kiln
