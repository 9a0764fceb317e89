#include "tir/analysis/code_size.h"

#include <algorithm>

#include "tir/functor.h"

namespace kiln {
namespace {

class CodeSize : public StmtVisitor {
 public:
  explicit CodeSize(int vector_bits) : vector_bits_(vector_bits) {}
  int64_t size = 0;

  using StmtVisitor::visit;
  void visit(const Expr& e) override {
    size += copies_;
    StmtVisitor::visit(e);
  }
  void visit(const Stmt& s) override {
    size += copies_;
    StmtVisitor::visit(s);
  }

  void visit_For(const ForNode* op, const Stmt& s) override {
    const int64_t* ext = as_const_int(op->extent);
    int64_t times = 1;
    if (ext && op->for_kind == ForKind::kUnrolled) times = std::max<int64_t>(*ext, 1);
    if (ext && op->for_kind == ForKind::kVectorized) {
      // Lanes of the widest type stored in the body: one vector per
      // vector_bits of them.
      int bits = 32;
      post_order_visit(op->body, [&](const Stmt& x) {
        if (const auto* st = x.as<BufferStoreNode>()) bits = std::max(bits, st->value.dtype().bits());
      });
      times = std::max<int64_t>(1, (*ext * bits + vector_bits_ - 1) / vector_bits_);
    }
    const int64_t outer = copies_;
    copies_ = saturating_mul(copies_, times);
    StmtVisitor::visit_For(op, s);
    copies_ = outer;
  }

 private:
  static int64_t saturating_mul(int64_t a, int64_t b) {
    constexpr int64_t kMax = int64_t{1} << 40;
    return a > kMax / b ? kMax : a * b;
  }
  int vector_bits_;
  int64_t copies_ = 1;
};

}  // namespace

int64_t code_size(const Stmt& body, int vector_bits) {
  CodeSize c(std::max(vector_bits, 32));
  c.visit(body);
  return c.size;
}

int64_t stmt_count(const Stmt& s) {
  int64_t n = 0;
  post_order_visit(s, [&](const Stmt&) { ++n; });
  return n;
}

}  // namespace kiln
