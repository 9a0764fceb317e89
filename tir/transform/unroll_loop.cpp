#include "tir/transform/unroll_loop.h"

#include "tir/functor.h"
#include "tir/tensor_intrin.h"
#include "tir/transform/simplify.h"

namespace kiln {
namespace {

// Straight-line statements a body becomes once unrolled, counting a
// vectorized loop as one; -1 if it holds any other loop.
int64_t straight_line_size(const Stmt& s) {
  switch (s.kind()) {
    case StmtKind::For: {
      // A tensorized nest becomes a few instructions (tir/tensor_intrin.h).
      const auto* f = s.as<ForNode>();
      return f->for_kind == ForKind::kVectorized || f->annotations.count(kTensorizeAnn) ? 1 : -1;
    }
    case StmtKind::SeqStmt: {
      int64_t n = 0;
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) {
        int64_t k = straight_line_size(c);
        if (k < 0) return -1;
        n += k;
      }
      return n;
    }
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      int64_t a = straight_line_size(op->then_case);
      int64_t b = op->else_case.defined() ? straight_line_size(op->else_case) : 0;
      return a < 0 || b < 0 ? -1 : a + b;
    }
    case StmtKind::LetStmt: return straight_line_size(s.as<LetStmtNode>()->body);
    case StmtKind::Allocate: return straight_line_size(s.as<AllocateNode>()->body);
    default: return 1;
  }
}

// Whether a Select's condition in `body` uses `v`.
bool selects_by(const Stmt& body, const Var& v) {
  bool found = false;
  visit_exprs(body, [&](const Expr& e) {
    const auto* sel = e.as<SelectNode>();
    if (found || !sel) return;
    found = uses_var(sel->cond, v);
  });
  return found;
}

class Unroller : public StmtMutator {
 public:
  // `short_only`: unroll short loops (kShortLoopTrips) and nothing else.
  Unroller(int64_t max_extent, bool short_only) : max_extent_(max_extent), short_only_(short_only) {}
  using StmtMutator::mutate;

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    if (op->annotations.count(kTensorizeAnn)) return s;  // the code generator's, whole
    const int64_t outer_step = auto_step_;
    if (auto it = op->annotations.find(kAutoUnrollMaxStep); it != op->annotations.end())
      if (const int64_t* v = as_const_int(it->second)) auto_step_ = *v;
    Stmt body = mutate(op->body);
    auto_step_ = outer_step;
    const int64_t* mn = as_const_int(op->min);
    const int64_t* ext = as_const_int(op->extent);
    if (!mn || !ext) return with_loop_body(s, body);
    bool unroll = !short_only_ && op->for_kind == ForKind::kUnrolled && *ext <= max_extent_;
    if (op->for_kind == ForKind::kSerial && op->annotations.empty()) {
      const int64_t size = straight_line_size(body);  // -1: a loop is left inside
      // Inside an auto-unroll annotation (not on the annotated loop itself):
      // if the code it becomes stays within the step.
      const bool within_step = !short_only_ && *ext * size <= outer_step;
      // A short loop whose copies stay few, annotated or not (see the header).
      const bool short_loop = *ext <= kShortLoopTrips && *ext * size <= kShortLoopStmts;
      unroll = size > 0 && (within_step || short_loop);
    }
    if (!unroll) return with_loop_body(s, body);
    // A body that selects by the loop variable (the rows of a constant
    // matrix: ops/winograd.h) is simplified copy by copy, so that each
    // copy keeps the one row its constant picks: the nested select chains
    // of Winograd's transforms are dozens of times the code they fold to.
    const bool selects = selects_by(body, op->loop_var);
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *ext; ++i) {
      Stmt copy = substitute(body, {{op->loop_var, int_imm(op->loop_var.dtype(), *mn + i)}});
      copies.push_back(selects ? simplify_stmt(copy) : copy);
    }
    return seq(std::move(copies));
  }

  // A loop unrolled inside a sequence joins it: seq() flattens.
  Stmt visit_SeqStmt(const SeqStmtNode* op, const Stmt& s) override { return mutate_seq_flattened(op, s); }

 private:
  int64_t max_extent_;
  bool short_only_;
  int64_t auto_step_ = 0;  // the innermost enclosing annotation's step; 0: none
};

}  // namespace

PrimFunc unroll_loops(const PrimFunc& f, int64_t max_extent) {
  Stmt body = Unroller(max_extent, false).mutate(f.body());
  return body.same_as(f.body()) ? f : f.with_body(body);
}

PrimFunc unroll_short_loops(const PrimFunc& f) {
  Stmt body = Unroller(0, true).mutate(f.body());
  return body.same_as(f.body()) ? f : f.with_body(body);
}

}  // namespace kiln
