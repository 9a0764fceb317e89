#include "tir/transform/vectorize_loop.h"

#include <algorithm>

#include "tir/functor.h"

namespace kiln {
namespace {

// Rewrites a loop body for one vector chunk: `var` takes the lanes base,
// base+1, ..., base+lanes-1. Sets failed() when the body cannot be vectorized.
class ChunkVectorizer : public StmtMutator {
 public:
  ChunkVectorizer(Var var, Expr base, int lanes) : var_(std::move(var)), base_(std::move(base)), lanes_(lanes) {}
  using StmtMutator::mutate;

  bool failed() const { return failed_; }

  Expr visit_Var(const VarNode* op, const Expr& e) override {
    if (op == var_.get()) return lanes_ == 1 ? base_ : ramp(base_, int_imm(base_.dtype(), 1), lanes_);
    for (const auto& [from, to] : renamed_)
      if (from.get() == op) return to;
    return e;
  }

#define KILN_VEC_BINARY(Name, Sym)                                          \
  Expr visit_##Name(const Name##Node* op, const Expr& e) override {         \
    Expr a = mutate(op->a), b = mutate(op->b);                              \
    if (a.same_as(op->a) && b.same_as(op->b)) return e;                     \
    widen(a);                                                               \
    widen(b);                                                               \
    return make_binary(ExprKind::Name, a, b);                               \
  }
  KILN_FOR_EACH_BINARY_EXPR(KILN_VEC_BINARY)
  KILN_FOR_EACH_CMP_EXPR(KILN_VEC_BINARY)
  KILN_FOR_EACH_LOGIC_EXPR(KILN_VEC_BINARY)
#undef KILN_VEC_BINARY

  Expr visit_Not(const NotNode* op, const Expr& e) override {
    Expr a = mutate(op->a);
    return a.same_as(op->a) ? e : logical_not(a);
  }

  Expr visit_Select(const SelectNode* op, const Expr& e) override {
    Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return e;
    widen(c);
    widen(t);
    widen(f);
    return select(c, t, f);
  }

  Expr visit_Cast(const CastNode* op, const Expr& e) override {
    Expr v = mutate(op->value);
    if (v.same_as(op->value)) return e;
    return cast(op->dtype.with_lanes(v.dtype().lanes()), v);
  }

  Expr visit_Call(const CallNode* op, const Expr& e) override {
    std::vector<Expr> args;
    bool changed = false;
    for (const Expr& a : op->args) {
      args.push_back(mutate(a));
      changed |= !args.back().same_as(a);
    }
    if (!changed) return e;
    for (Expr& a : args) widen(a);
    return call(op->op, std::move(args));
  }

  Expr visit_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
    KILN_ICHECK(op->indices.size() == 1) << "vectorize expects flattened buffers";
    Expr idx = mutate(op->indices[0]);
    if (idx.same_as(op->indices[0])) return e;
    return buffer_load(op->buffer, {idx});
  }

  Expr visit_Let(const LetNode* op, const Expr& e) override {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) {
      Expr body = mutate(op->body);
      return body.same_as(op->body) ? e : let(op->var, value, body);
    }
    Var v(op->var.name(), value.dtype());
    renamed_.emplace_back(op->var, v);
    Expr body = mutate(op->body);
    widen_to(body, value.dtype().lanes());
    return let(v, value, body);
  }

  Expr visit_Ramp(const RampNode* op, const Expr& e) override { return unchanged_or_fail(e); }
  Expr visit_Broadcast(const BroadcastNode* op, const Expr& e) override { return unchanged_or_fail(e); }

  Stmt visit_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    KILN_ICHECK(op->indices.size() == 1) << "vectorize expects flattened buffers";
    Expr idx = mutate(op->indices[0]);
    Expr value = mutate(op->value);
    if (idx.dtype().lanes() == 1 && lanes_ > 1) {
      // Every lane would store to the same element: not a vector store.
      failed_ = true;
      return s;
    }
    if (idx.same_as(op->indices[0]) && value.same_as(op->value)) return s;
    widen(value);
    return buffer_store(op->buffer, value, {idx});
  }

  Stmt visit_IfThenElse(const IfThenElseNode* op, const Stmt& s) override {
    Expr c = mutate(op->condition);
    if (c.dtype().lanes() != 1) {
      failed_ = true;
      return s;
    }
    Stmt t = mutate(op->then_case);
    Stmt f = op->else_case.defined() ? mutate(op->else_case) : Stmt();
    if (c.same_as(op->condition) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
    return if_then_else(c, t, f);
  }

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    if (mn.dtype().lanes() != 1 || ext.dtype().lanes() != 1 || op->for_kind == ForKind::kVectorized) {
      failed_ = true;
      return s;
    }
    Stmt body = mutate(op->body);
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return s;
    return for_loop(op->loop_var, mn, ext, op->for_kind, body, op->thread_tag, op->annotations);
  }

  Stmt visit_LetStmt(const LetStmtNode* op, const Stmt& s) override {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) {
      Stmt body = mutate(op->body);
      return body.same_as(op->body) ? s : let_stmt(op->var, value, body);
    }
    Var v(op->var.name(), value.dtype());
    renamed_.emplace_back(op->var, v);
    return let_stmt(v, value, mutate(op->body));
  }

  Stmt visit_Allocate(const AllocateNode*, const Stmt& s) override {
    failed_ = true;
    return s;
  }

 private:
  void widen(Expr& e) { widen_to(e, lanes_); }
  static void widen_to(Expr& e, int lanes) {
    if (lanes > 1 && e.dtype().lanes() == 1) e = broadcast(e, lanes);
  }
  Expr unchanged_or_fail(const Expr& e) {
    if (uses_var(e, var_)) failed_ = true;
    return e;
  }

  Var var_;
  Expr base_;
  int lanes_;
  bool failed_ = false;
  std::vector<std::pair<Var, Var>> renamed_;
};

class LoopVectorizer : public StmtMutator {
 public:
  explicit LoopVectorizer(int max_lanes) : max_lanes_(std::max(1, max_lanes)) {}
  using StmtMutator::mutate;

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    if (op->for_kind != ForKind::kVectorized) return with_loop_body(s, body);
    Stmt serial = for_loop(op->loop_var, op->min, op->extent, ForKind::kSerial, body, "", op->annotations);
    const int64_t* ext = as_const_int(op->extent);
    if (!ext || *ext < 1) return serial;
    int64_t lanes = std::min<int64_t>(*ext, max_lanes_);
    int64_t chunks = *ext / lanes, tail = *ext % lanes;
    DataType t = op->loop_var.dtype();

    std::vector<Stmt> parts;
    if (chunks > 0) {
      Var outer(op->loop_var.name() + "_outer", t);
      Expr base = chunks == 1 ? op->min : add(op->min, mul(outer, int_imm(t, lanes)));
      ChunkVectorizer cv(op->loop_var, base, static_cast<int>(lanes));
      Stmt vec = cv.mutate(body);
      if (cv.failed()) return serial;
      parts.push_back(chunks == 1 ? vec : for_loop(outer, int_imm(t, 0), int_imm(t, chunks), ForKind::kSerial, vec));
    }
    if (tail > 0) {
      Expr base = add(op->min, int_imm(t, chunks * lanes));
      ChunkVectorizer cv(op->loop_var, base, static_cast<int>(tail));
      Stmt vec = cv.mutate(body);
      if (cv.failed()) return serial;
      parts.push_back(vec);
    }
    return seq(std::move(parts));
  }

 private:
  int max_lanes_;
};

}  // namespace

PrimFunc vectorize_loops(const PrimFunc& f, int max_lanes) {
  Stmt body = LoopVectorizer(max_lanes).mutate(f.body());
  return f.with_body(body);
}

}  // namespace kiln
