// Statements: loops, sequences, branches, lets, allocations and blocks.
//
// Every loop kind runs serially in order: parallel, vectorized, unrolled and
// thread-bound loops have the same meaning as serial ones for programs
// without races, and thread-bound loops simply iterate their extent.
#include <optional>
#include <sstream>

#include "tir/interp/compiler.h"
#include "tir/buffer_layout.h"

namespace kiln::interp {

namespace {

class NoOp final : public StmtCode {
 public:
  void run(Frame&) const override {}
};

class SeqCode final : public StmtCode {
 public:
  explicit SeqCode(std::vector<StmtPtr> s) : seq_(std::move(s)) {}
  void run(Frame& fr) const override {
    for (const StmtPtr& s : seq_) s->run(fr);
  }

 private:
  std::vector<StmtPtr> seq_;
};

class ForCode final : public StmtCode {
 public:
  ForCode(int slot, IndexCode min, IndexCode extent, StmtPtr body)
      : slot_(slot), min_(std::move(min)), extent_(std::move(extent)), body_(std::move(body)) {}
  void run(Frame& fr) const override {
    const int64_t lo = min_.eval(fr);
    const int64_t hi = lo + extent_.eval(fr);
    for (int64_t x = lo; x < hi; ++x) {
      fr.slots[slot_].i = x;
      body_->run(fr);
    }
  }

 private:
  int slot_;
  IndexCode min_, extent_;
  StmtPtr body_;
};

class IfCode final : public StmtCode {
 public:
  IfCode(ExprPtr c, StmtPtr t, StmtPtr f) : c_(std::move(c)), t_(std::move(t)), f_(std::move(f)) {}
  void run(Frame& fr) const override {
    if (c_->eval_int(fr) != 0) {
      t_->run(fr);
    } else if (f_) {
      f_->run(fr);
    }
  }

 private:
  ExprPtr c_;
  StmtPtr t_, f_;
};

class LetStmtCode final : public StmtCode {
 public:
  LetStmtCode(int slot, ExprPtr v, StmtPtr body) : slot_(slot), v_(std::move(v)), body_(std::move(body)) {}
  void run(Frame& fr) const override {
    v_->eval_lanes(fr, fr.slots + slot_);
    body_->run(fr);
  }

 private:
  int slot_;
  ExprPtr v_;
  StmtPtr body_;
};

// Evaluates for the errors it may raise (out-of-bounds, division by zero).
class EvaluateCode final : public StmtCode {
 public:
  explicit EvaluateCode(ExprPtr v) : v_(std::move(v)), scratch_(v_->lanes()) {}
  void run(Frame& fr) const override { v_->eval_lanes(fr, scratch_.data()); }

 private:
  ExprPtr v_;
  mutable std::vector<Scalar> scratch_;
};

// One intermediate buffer's storage while its scope runs. The storage is kept
// between runs of the scope (no allocation in a hot loop) and zeroed each time.
class Allocation {
 public:
  Allocation(Compiler& c, const Buffer& b) {
    for (const Expr& e : b.shape()) shape_.push_back(c.index(e));
    align_axis_ = b->align_axis;
    align_factor_ = b->align_factor;
    align_offset_ = b->align_offset;
    buffer_ = c.declare_buffer(b, /*dense=*/false);
    bytes_ = elem_bytes(c.buffer_info(buffer_).elem);
    name_ = b.name();
  }

  void open(Frame& fr) const {
    LiveBuffer& lb = fr.buffers[buffer_];
    lb.shape.resize(shape_.size());
    for (size_t d = 0; d < shape_.size(); ++d) {
      lb.shape[d] = shape_[d].eval(fr);
      if (lb.shape[d] < 0) KILN_USER_ERROR() << "buffer " << name_ << " has extent " << lb.shape[d] << " in dimension " << d;
    }
    const int64_t n = compute_layout(lb.shape, align_axis_, align_factor_, align_offset_, lb.strides);
    const size_t words = static_cast<size_t>((n * bytes_ + 7) / 8);
    storage_.assign(words, 0);
    lb.data = reinterpret_cast<char*>(storage_.data());
  }
  void close(Frame& fr) const { fr.buffers[buffer_].data = nullptr; }

 private:
  int buffer_ = 0;
  int bytes_ = 1;
  std::string name_;
  std::vector<IndexCode> shape_;
  int64_t align_axis_ = 0, align_factor_ = 0, align_offset_ = 0;
  mutable std::vector<uint64_t> storage_;
};

class AllocateCode final : public StmtCode {
 public:
  AllocateCode(Allocation a, StmtPtr body) : a_(std::move(a)), body_(std::move(body)) {}
  void run(Frame& fr) const override {
    a_.open(fr);
    body_->run(fr);
    a_.close(fr);
  }

 private:
  Allocation a_;
  StmtPtr body_;
};

// An iter var that needs work at each block instance: its value copied into
// its slot, and checked against its domain unless that is proven.
struct IterBinding {
  int slot;
  IndexCode value, dom_min, dom_extent;
  bool check;
  std::string name;
};

// A reduce iter var, tested against its domain's minimum to decide the init.
struct ReduceStart {
  int slot;
  IndexCode dom_min;
};

// A BlockRealize and its Block: tests the predicate, binds iter vars (each
// checked against its domain), opens the block's allocations, runs init when
// every reduce iter var sits at its domain's minimum, then the body.
class BlockCode final : public StmtCode {
 public:
  BlockCode(std::string name, std::vector<IterBinding> binds, std::vector<ReduceStart> reduces, ExprPtr predicate,
            std::vector<Allocation> allocs, StmtPtr init, StmtPtr body)
      : name_(std::move(name)), binds_(std::move(binds)), reduces_(std::move(reduces)),
        predicate_(std::move(predicate)), allocs_(std::move(allocs)), init_(std::move(init)), body_(std::move(body)),
        lean_(binds_.empty() && !predicate_ && allocs_.empty()) {}

  void run(Frame& fr) const override {
    if (lean_) {  // the usual block after slot sharing: nothing to bind or allocate
      if (init_ && at_start(fr)) init_->run(fr);
      body_->run(fr);
      return;
    }
    if (predicate_ && predicate_->eval_int(fr) == 0) return;
    for (const IterBinding& b : binds_) {
      const int64_t v = b.value.eval(fr);
      if (b.check) {
        const int64_t lo = b.dom_min.eval(fr);
        if (v < lo || v - lo >= b.dom_extent.eval(fr)) [[unlikely]]
          outside_domain(fr, b, v);
      }
      fr.slots[b.slot].i = v;
    }
    for (const Allocation& a : allocs_) a.open(fr);
    if (init_ && at_start(fr)) init_->run(fr);
    body_->run(fr);
    for (const Allocation& a : allocs_) a.close(fr);
  }

 private:
  // Whether every reduce iter var is at its domain's minimum.
  bool at_start(Frame& fr) const {
    for (const ReduceStart& r : reduces_) {
      if (fr.slots[r.slot].i != r.dom_min.eval(fr)) return false;
    }
    return true;
  }

  [[noreturn, gnu::noinline, gnu::cold]] void outside_domain(Frame& fr, const IterBinding& b, int64_t v) const {
    const int64_t lo = b.dom_min.eval(fr);
    KILN_USER_ERROR() << "block " << name_ << ": iter var " << b.name << " is bound to " << v
                      << ", outside its domain [" << lo << ", " << lo + b.dom_extent.eval(fr) << ")";
  }

  std::string name_;
  std::vector<IterBinding> binds_;
  std::vector<ReduceStart> reduces_;
  ExprPtr predicate_;
  std::vector<Allocation> allocs_;
  StmtPtr init_, body_;
  bool lean_;
};

ExprPtr scalar_condition(Compiler& c, const Expr& e, const std::string& what) {
  if (!e.dtype().is_integral() || !e.dtype().is_scalar())
    KILN_USER_ERROR() << what << " has type " << e.dtype().str() << ", expected bool";
  return c.expr(e);
}

void check_int_var(const Var& v, const char* what) {
  if (!v.dtype().is_integral() || !v.dtype().is_scalar())
    KILN_USER_ERROR() << what << " " << v.name() << " has type " << v.dtype().str() << ", expected an integer";
}

StmtPtr compile_block(Compiler& c, const BlockNode* blk, const BlockRealizeNode* realize) {
  if (!realize && !blk->iter_vars.empty())
    KILN_USER_ERROR() << "block " << blk->name << " has iter vars but no block realize to bind them";
  // Values, domains and the predicate belong to the scope around the block.
  std::vector<IterBinding> binds;
  std::vector<ReduceStart> reduces;
  std::vector<int> ranged;  // slots given a range for the block's extent
  std::vector<std::pair<const IterVar*, int>> aliases;
  struct Fresh {
    const IterVar* iv;
    size_t bind;
    bool constant_domain;
  };
  std::vector<Fresh> fresh;
  for (size_t i = 0; i < blk->iter_vars.size(); ++i) {
    const IterVar& iv = blk->iter_vars[i];
    check_int_var(iv.var(), "iter var");
    IndexCode value = c.index(realize->iter_values[i]);
    IndexCode lo = c.index(iv.dom()->min), n = c.index(iv.dom()->extent);
    std::optional<std::pair<int64_t, int64_t>> dom;
    if (lo.is_constant() && n.is_constant())
      dom = std::make_pair(lo.constant_value(), lo.constant_value() + n.constant_value() - 1);
    auto r = c.range_of(value);
    const bool proven = dom && r && (r->first > r->second || (r->first >= dom->first && r->second <= dom->second));
    if (value.is_slot() && proven) {
      // Bound to a loop variable that never leaves the domain: share its slot.
      aliases.emplace_back(&iv, value.slot_index());
      if (iv.is_reduce()) reduces.push_back(ReduceStart{value.slot_index(), lo});
    } else {
      binds.push_back(IterBinding{0, std::move(value), lo, n, !proven, iv.var().name()});
      fresh.push_back(Fresh{&iv, binds.size() - 1, dom.has_value()});
    }
  }
  ExprPtr predicate;
  bool never = false;
  if (realize) {
    const Expr& p = realize->predicate;
    if (const int64_t* k = as_const_int(p)) {
      never = *k == 0;
    } else {
      predicate = scalar_condition(c, p, "predicate of block " + blk->name);
    }
  }
  for (const auto& [iv, slot] : aliases) c.alias_var(iv->var(), slot);
  for (const Fresh& f : fresh) {
    IterBinding& b = binds[f.bind];
    b.slot = c.bind_var(f.iv->var());
    if (f.iv->is_reduce()) reduces.push_back(ReduceStart{b.slot, b.dom_min});
    if (f.constant_domain) {
      // Checked (or proven) at every instance: inside the block, the iter
      // var lies in its domain.
      const int64_t lo = b.dom_min.constant_value();
      c.set_range(b.slot, lo, lo + b.dom_extent.constant_value() - 1);
      ranged.push_back(b.slot);
    }
  }
  std::vector<Allocation> allocs;
  for (const Buffer& b : blk->alloc_buffers) allocs.emplace_back(c, b);
  StmtPtr init = blk->init.defined() ? c.stmt(blk->init) : nullptr;
  StmtPtr body = c.stmt(blk->body);
  for (const Buffer& b : blk->alloc_buffers) c.undeclare_buffer(b);
  for (int s : ranged) c.clear_range(s);
  for (const IterVar& iv : blk->iter_vars) c.unbind_var(iv.var());
  // A block whose predicate is constant false is still compiled, so that its
  // errors are reported, but never runs.
  if (never) return std::make_unique<NoOp>();
  return std::make_unique<BlockCode>(blk->name, std::move(binds), std::move(reduces), std::move(predicate),
                                     std::move(allocs), std::move(init), std::move(body));
}

}  // namespace

StmtPtr Compiler::stmt(const Stmt& s) {
  if (!s.defined()) KILN_USER_ERROR() << "missing statement";
  switch (s.kind()) {
    case StmtKind::BufferStore: return store(s.as<BufferStoreNode>());
    case StmtKind::For: {
      const auto* op = s.as<ForNode>();
      check_int_var(op->loop_var, "loop variable");
      if (op->for_kind == ForKind::kThreadBinding && op->thread_tag.empty())
        KILN_USER_ERROR() << "thread-bound loop " << op->loop_var.name() << " has no thread tag";
      IndexCode lo = index(op->min), n = index(op->extent);
      int slot = bind_var(op->loop_var);
      if (lo.is_constant() && n.is_constant())
        set_range(slot, lo.constant_value(), lo.constant_value() + n.constant_value() - 1);
      StmtPtr body = stmt(op->body);
      clear_range(slot);
      unbind_var(op->loop_var);
      return std::make_unique<ForCode>(slot, std::move(lo), std::move(n), std::move(body));
    }
    case StmtKind::SeqStmt: {
      std::vector<StmtPtr> seq;
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) seq.push_back(stmt(c));
      return std::make_unique<SeqCode>(std::move(seq));
    }
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      ExprPtr c = scalar_condition(*this, op->condition, "condition of if");
      StmtPtr t = stmt(op->then_case);
      StmtPtr f = op->else_case.defined() ? stmt(op->else_case) : nullptr;
      return std::make_unique<IfCode>(std::move(c), std::move(t), std::move(f));
    }
    case StmtKind::LetStmt: {
      const auto* op = s.as<LetStmtNode>();
      if (op->var.dtype() != op->value.dtype())
        KILN_USER_ERROR() << "let " << op->var.name() << " of type " << op->var.dtype().str() << " bound to a "
                          << op->value.dtype().str();
      ExprPtr v = expr(op->value);
      int slot = bind_var(op->var);
      StmtPtr body = stmt(op->body);
      unbind_var(op->var);
      return std::make_unique<LetStmtCode>(slot, std::move(v), std::move(body));
    }
    case StmtKind::Allocate: {
      const auto* op = s.as<AllocateNode>();
      Allocation a(*this, op->buffer);
      StmtPtr body = stmt(op->body);
      undeclare_buffer(op->buffer);
      return std::make_unique<AllocateCode>(std::move(a), std::move(body));
    }
    case StmtKind::Evaluate: {
      const Expr& v = s.as<EvaluateNode>()->value;
      if (as_const_int(v) || as_const_float(v)) return std::make_unique<NoOp>();
      return std::make_unique<EvaluateCode>(expr(v));
    }
    case StmtKind::Barrier: return std::make_unique<NoOp>();  // one thread runs the code
    case StmtKind::Prefetch: return std::make_unique<NoOp>();  // a hint about caches
    case StmtKind::Block: return compile_block(*this, s.as<BlockNode>(), nullptr);
    case StmtKind::BlockRealize: {
      const auto* op = s.as<BlockRealizeNode>();
      const auto* blk = op->block.as<BlockNode>();
      if (!blk) KILN_USER_ERROR() << "block realize without a block";
      if (blk->iter_vars.size() != op->iter_values.size())
        KILN_USER_ERROR() << "block " << blk->name << " has " << blk->iter_vars.size() << " iter vars but "
                          << op->iter_values.size() << " values";
      return compile_block(*this, blk, op);
    }
  }
  KILN_ICHECK(false) << "unhandled statement kind " << stmt_kind_name(s.kind());
  return nullptr;
}

}  // namespace kiln::interp
