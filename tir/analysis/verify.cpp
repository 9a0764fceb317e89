#include "tir/analysis/verify.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/expr_type.h"
#include "core/functor.h"

namespace kiln {

namespace {

const VarNode* node_of(const Var& v) { return v.operator->(); }

enum class VarKind : uint8_t { kShape, kLet, kLoop, kIterVar };

struct VarDef {
  VarKind kind;
  int block_depth;  // loop and iter vars are visible only at this depth
};

// Walks the function once, keeping the scopes; records the first problem and
// stops looking after it.
class Verifier : public ExprVisitor {
 public:
  explicit Verifier(bool lowered) : lowered_(lowered) {}

  std::optional<std::string> run(const PrimFunc& f) {
    for (const Buffer& b : f.params()) {
      if (lowered_ && b.ndim() != 1) fail() << "parameter " << b.name() << " has " << b.ndim() << " dimensions, lowered buffers have one";
      for (const Expr& e : b.shape()) {
        post_order_visit(e, [&](const Expr& x) {
          const auto* v = x.as<VarNode>();
          if (v && !visible_.count(v)) define(v, f.get(), VarKind::kShape);
        });
      }
      buffers_[b.get()]++;
    }
    if (f.body().defined()) {
      stmt(f.body());
    } else {
      fail() << "function " << f.name() << " has no body";
    }
    return error_;
  }

  using ExprVisitor::visit;

  void visit(const Expr& e) override {
    if (error_) return;
    if (e.defined()) {
      if (auto t = expr_type_error(*e)) {
        fail() << "ill-typed expression" << where() << ": " << *t;
        return;
      }
    }
    ExprVisitor::visit(e);
  }

  void visit_Var(const VarNode* op, const Expr&) override { use(op); }

  void visit_Let(const LetNode* op, const Expr&) override {
    visit(op->value);
    bool bound = define(node_of(op->var), op, VarKind::kLet);
    visit(op->body);
    if (bound) visible_.erase(node_of(op->var));
  }

  void visit_BufferLoad(const BufferLoadNode* op, const Expr&) override {
    access(op->buffer, op->indices, "load from");
    for (const Expr& i : op->indices) visit(i);
  }

  void visit_Reduce(const ReduceNode*, const Expr&) override {
    fail() << "Reduce" << where() << ": reductions belong to compute definitions, blocks express them with an init";
  }

 private:
  // Streams the message into error_ when it is the first problem.
  class Failure {
   public:
    explicit Failure(std::optional<std::string>* out) : out_(out) {}
    ~Failure() {
      if (!*out_) *out_ = os_.str();
    }
    template <typename T>
    Failure& operator<<(const T& v) {
      os_ << v;
      return *this;
    }

   private:
    std::optional<std::string>* out_;
    std::ostringstream os_;
  };
  Failure fail() { return Failure(&error_); }

  std::string where() const { return blocks_.empty() ? "" : " in block " + blocks_.back(); }

  // Returns whether v became visible (so the caller ends its scope).
  bool define(const VarNode* v, const Object* site, VarKind kind) {
    if (visible_.count(v)) {
      fail() << "variable " << v->name << " is defined twice" << where() << ": it is already in scope";
      return false;
    }
    auto [it, inserted] = sites_.emplace(v, site);
    if (!inserted && it->second != site && !lowered_) {
      fail() << "variable " << v->name << " is defined twice" << where();
      return false;
    }
    visible_[v] = VarDef{kind, static_cast<int>(blocks_.size())};
    return true;
  }

  void use(const VarNode* v) {
    auto it = visible_.find(v);
    if (it == visible_.end()) {
      if (sites_.count(v)) {
        fail() << "variable " << v->name << " is used outside its scope" << where();
      } else {
        fail() << "variable " << v->name << " is used" << where() << " but never defined";
      }
      return;
    }
    const VarDef& d = it->second;
    if (d.block_depth == static_cast<int>(blocks_.size())) return;
    if (d.kind == VarKind::kLoop) {
      fail() << "loop variable " << v->name << " is used inside block " << blocks_.back()
             << ": a block sees loops only through its iter_values";
    } else if (d.kind == VarKind::kIterVar) {
      fail() << "iter var " << v->name << " of block " << blocks_[d.block_depth - 1] << " is used inside block "
             << blocks_.back() << ": a nested block sees it only through its iter_values";
    }
  }

  void check_buffer(const Buffer& b, const char* what) {
    if (!buffers_.count(b.get()) || buffers_[b.get()] == 0)
      fail() << what << " buffer " << b.name() << where()
             << ", which is neither a parameter nor allocated around the access";
  }

  void access(const Buffer& b, const std::vector<Expr>& indices, const char* what) {
    check_buffer(b, what);
    if (static_cast<int>(indices.size()) != b.ndim()) {
      fail() << what << " " << b.name() << where() << " has " << indices.size() << " indices, but " << b.name()
             << " has " << b.ndim() << " dimensions";
    }
    if (!lowered_) return;
    if (b.ndim() != 1) fail() << what << " " << b.name() << " with " << b.ndim() << " dimensions: lowered buffers have one";
    for (const Expr& i : indices) {
      DataType t = i.dtype().element_of();
      if (t != DataType::Int32() && t != DataType::Int64())
        fail() << "index of " << b.name() << " has type " << i.dtype().str() << ": lowered indices are int32 or int64";
    }
  }

  void declare(const Buffer& b) {
    if (buffers_[b.get()]++ > 0) fail() << "buffer " << b.name() << " is allocated" << where() << " while it is already live";
    if (lowered_ && b.ndim() != 1)
      fail() << "allocation of " << b.name() << " has " << b.ndim() << " dimensions: lowered buffers have one";
    for (const Expr& e : b.shape()) visit(e);
  }
  void undeclare(const Buffer& b) { buffers_[b.get()]--; }

  void stmt(const Stmt& s) {
    if (error_) return;
    if (!s.defined()) {
      fail() << "missing statement" << where();
      return;
    }
    switch (s.kind()) {
      case StmtKind::BufferStore: {
        const auto* op = s.as<BufferStoreNode>();
        access(op->buffer, op->indices, "store to");
        int lanes = 1;
        for (const Expr& i : op->indices) lanes = std::max(lanes, i.dtype().lanes());
        DataType t = op->value.dtype();
        if (t.element_of() != op->buffer.dtype() || t.lanes() != lanes)
          fail() << "store of " << t.str() << " into " << op->buffer.name() << where() << " of "
                 << op->buffer.dtype().str() << " with " << lanes << "-lane indices";
        visit(op->value);
        for (const Expr& i : op->indices) visit(i);
        return;
      }
      case StmtKind::For: {
        const auto* op = s.as<ForNode>();
        const std::string& name = op->loop_var.name();
        if (!op->min.dtype().is_integral() || !op->extent.dtype().is_integral() || !op->min.dtype().is_scalar() ||
            !op->extent.dtype().is_scalar() || !op->loop_var.dtype().is_integral())
          fail() << "loop " << name << where() << " has non-integer bounds";
        if (op->for_kind == ForKind::kThreadBinding && op->thread_tag.empty())
          fail() << "thread-bound loop " << name << where() << " has no thread tag";
        if (lowered_ && op->for_kind == ForKind::kVectorized)
          fail() << "vectorized loop " << name << " in lowered code: the vectorizer rewrites or serialises them";
        const bool parallel = op->for_kind == ForKind::kParallel;
        if (lowered_ && parallel && parallel_depth_ > 0)
          fail() << "parallel loop " << name << " is nested inside another parallel loop";
        visit(op->min);
        visit(op->extent);
        bool bound = define(node_of(op->loop_var), op, VarKind::kLoop);
        parallel_depth_ += parallel;
        stmt(op->body);
        parallel_depth_ -= parallel;
        if (bound) visible_.erase(node_of(op->loop_var));
        return;
      }
      case StmtKind::SeqStmt:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) stmt(c);
        return;
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (!op->condition.dtype().is_bool()) fail() << "if condition" << where() << " has type " << op->condition.dtype().str();
        visit(op->condition);
        stmt(op->then_case);
        if (op->else_case.defined()) stmt(op->else_case);
        return;
      }
      case StmtKind::LetStmt: {
        const auto* op = s.as<LetStmtNode>();
        visit(op->value);
        bool bound = define(node_of(op->var), op, VarKind::kLet);
        stmt(op->body);
        if (bound) visible_.erase(node_of(op->var));
        return;
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        declare(op->buffer);
        stmt(op->body);
        undeclare(op->buffer);
        return;
      }
      case StmtKind::Evaluate: visit(s.as<EvaluateNode>()->value); return;
      case StmtKind::Barrier: return;
      case StmtKind::Prefetch:
        for (const Expr& i : s.as<PrefetchNode>()->indices) visit(i);
        return;
      case StmtKind::Block: block(s.as<BlockNode>(), nullptr); return;
      case StmtKind::BlockRealize: {
        const auto* op = s.as<BlockRealizeNode>();
        const auto* blk = op->block.as<BlockNode>();
        if (!blk) {
          fail() << "block realize" << where() << " without a block";
          return;
        }
        if (blk->iter_vars.size() != op->iter_values.size())
          fail() << "block " << blk->name << " has " << blk->iter_vars.size() << " iter vars but "
                 << op->iter_values.size() << " iter values";
        for (const Expr& v : op->iter_values) visit(v);
        if (!op->predicate.dtype().is_bool()) fail() << "predicate of block " << blk->name << " has type " << op->predicate.dtype().str();
        visit(op->predicate);
        block(blk, op);
        return;
      }
    }
  }

  void block(const BlockNode* b, const BlockRealizeNode* realize) {
    if (error_) return;
    if (lowered_) {
      fail() << "block " << b->name << " in lowered code: lowering turns blocks into loops";
      return;
    }
    if (!realize && !b->iter_vars.empty()) fail() << "block " << b->name << " has iter vars but no block realize";
    for (const IterVar& iv : b->iter_vars) {
      visit(iv.dom()->min);
      visit(iv.dom()->extent);
    }
    blocks_.push_back(b->name);
    std::vector<const VarNode*> bound;
    for (const IterVar& iv : b->iter_vars) {
      if (!iv.var().dtype().is_integral()) fail() << "iter var " << iv.var().name() << where() << " is not an integer";
      if (define(node_of(iv.var()), b, VarKind::kIterVar)) bound.push_back(node_of(iv.var()));
    }
    for (const Buffer& a : b->alloc_buffers) declare(a);
    for (const auto* regions : {&b->reads, &b->writes}) {
      for (const BufferRegion& r : *regions) {
        check_buffer(r.buffer(), "region of");
        if (static_cast<int>(r->region.size()) != r.buffer().ndim())
          fail() << "region of " << r.buffer().name() << where() << " has " << r->region.size() << " ranges, but "
                 << r.buffer().name() << " has " << r.buffer().ndim() << " dimensions";
        for (const Range& rg : r->region) {
          visit(rg->min);
          visit(rg->extent);
        }
      }
    }
    if (b->init.defined()) stmt(b->init);
    stmt(b->body);
    for (const Buffer& a : b->alloc_buffers) undeclare(a);
    for (const VarNode* v : bound) visible_.erase(v);
    blocks_.pop_back();
  }

  bool lowered_;
  std::optional<std::string> error_;
  std::unordered_map<const VarNode*, VarDef> visible_;
  // The first binding node of every variable ever defined.
  std::unordered_map<const VarNode*, const Object*> sites_;
  std::unordered_map<const Object*, int> buffers_;  // live allocations per buffer
  std::vector<std::string> blocks_;                 // enclosing block names
  int parallel_depth_ = 0;
};

}  // namespace

std::optional<std::string> verify_error(const PrimFunc& f) { return Verifier(false).run(f); }

void verify(const PrimFunc& f) {
  if (auto e = verify_error(f)) KILN_USER_ERROR() << *e;
}

std::optional<std::string> verify_lowered_error(const PrimFunc& f) { return Verifier(true).run(f); }

void verify_lowered(const PrimFunc& f) {
  if (auto e = verify_lowered_error(f)) KILN_USER_ERROR() << *e;
}

}  // namespace kiln
