#include "tir/transform/unroll_loop.h"

#include "tir/functor.h"

namespace kiln {
namespace {

class Unroller : public StmtMutator {
 public:
  explicit Unroller(int64_t max_extent) : max_extent_(max_extent) {}
  using StmtMutator::mutate;

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    const int64_t* mn = as_const_int(op->min);
    const int64_t* ext = as_const_int(op->extent);
    if (op->for_kind != ForKind::kUnrolled || !mn || !ext || *ext > max_extent_) {
      return with_loop_body(s, body);
    }
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *ext; ++i)
      copies.push_back(substitute(body, {{op->loop_var, int_imm(op->loop_var.dtype(), *mn + i)}}));
    return seq(std::move(copies));
  }

 private:
  int64_t max_extent_;
};

}  // namespace

PrimFunc unroll_loops(const PrimFunc& f, int64_t max_extent) {
  Stmt body = Unroller(max_extent).mutate(f.body());
  return f.with_body(body);
}

}  // namespace kiln
