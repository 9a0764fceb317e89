// compute_inline, reverse_compute_inline: remove the stage between two
// blocks by computing its value where it is used.
//
//   compute_inline(B):                         reverse_compute_inline(C):
//     block B: B[vi] = A[vi] * 2                 block B: B[vi] = A[vi] * 2
//     block C: C[vi] = B[vi] + B[vi + 1]         block C: C[vi] = max(B[vi], 0)
//   ->                                         ->
//     block C: C[vi] = A[vi] * 2 + A[vi + 1] * 2   block B: C[vi] = max(A[vi] * 2, 0)
//
// compute_inline replaces every load of the producer's buffer by the
// producer's value at the load's indices; reverse_compute_inline makes the
// producer store the consumer's value into the consumer's buffer. Either way
// the inlined block, the loops that held only it and the buffer between the
// two go, and the blocks that changed get their reads and writes recomputed.
//
// What makes the substitution exact (TensorIR's conditions, and a few more
// where a moved computation could see other values):
//  - the producer stores one value at its spatial iter vars, each once, so
//    each point of the buffer is one instance of it: no init, no reduction
//    axis, no predicate, not reading the buffer it writes;
//  - the buffer is allocated by the function (not an output), and written
//    by the producer alone;
//  - compute_inline: at least one block reads the buffer, and no block that
//    writes what the producer reads runs after the producer's nest begins;
//  - reverse_compute_inline: the consumer is the buffer's only reader, reads
//    no other block's output, loads the buffer only at its own iter vars,
//    each once, over the domain the producer writes, and no other block
//    uses the consumer's buffer before the two nests are done.
#include <optional>

#include "core/structural.h"
#include "tir/functor.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/compute_location.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

const char* const kInline = "compute_inline";
const char* const kReverse = "reverse_compute_inline";

std::string q(const std::string& s) { return "'" + s + "'"; }

// The innermost block around `loc` that allocates `buf`, or nullptr.
const BlockNode* allocating_block(const Located& loc, const Buffer& buf, Stmt* block_stmt = nullptr) {
  for (auto it = loc.ancestors.rbegin(); it != loc.ancestors.rend(); ++it) {
    const auto* b = it->as<BlockNode>();
    if (!b) continue;
    for (const Buffer& a : b->alloc_buffers)
      if (a.same_as(buf)) {
        if (block_stmt) *block_stmt = *it;
        return b;
      }
  }
  return nullptr;
}

// Whether `buf` can be used at `loc`: a parameter, or allocated around it.
bool visible_at(const PrimFunc& f, const Located& loc, const Buffer& buf) {
  return is_param(f, buf) || allocating_block(loc, buf);
}

// The buffers `e` loads, each once, in order of first load.
std::vector<Buffer> loaded_buffers(const Expr& e) {
  std::vector<Buffer> out;
  post_order_visit(e, [&](const Expr& x) {
    const auto* l = x.as<BufferLoadNode>();
    if (!l) return;
    for (const Buffer& b : out)
      if (b.same_as(l->buffer)) return;
    out.push_back(l->buffer);
  });
  return out;
}

bool loads(const Expr& e, const Buffer& buf) {
  for (const Buffer& b : loaded_buffers(e))
    if (b.same_as(buf)) return true;
  return false;
}

// The loads of `buf` in `e`.
std::vector<const BufferLoadNode*> loads_of(const Expr& e, const Buffer& buf) {
  std::vector<const BufferLoadNode*> out;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* l = x.as<BufferLoadNode>(); l && l->buffer.same_as(buf)) out.push_back(l);
  });
  return out;
}

// The iter var of `b` that each index is, when the indices are all of its
// iter vars, each once (in some order).
std::optional<std::vector<Var>> as_iter_vars(const std::vector<Expr>& indices, const BlockNode* b) {
  if (indices.size() != b->iter_vars.size()) return std::nullopt;
  std::vector<Var> vars;
  for (const Expr& e : indices) {
    const Var* own = nullptr;
    for (const IterVar& iv : b->iter_vars)
      if (iv.var().same_as(e)) own = &iv.var();
    if (!own) return std::nullopt;
    for (const Var& seen : vars)
      if (seen.same_as(*own)) return std::nullopt;
    vars.push_back(*own);
  }
  return vars;
}

bool same_vars(const std::vector<Var>& a, const std::vector<Var>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same_as(b[i])) return false;
  return true;
}

// The blocks under `scope` that write (or read) `buf`, inner blocks before
// the blocks around them, leaving out the block at `self` and the blocks
// around it.
std::vector<Located> accessors(const PrimFunc& f, const Stmt& scope, const Buffer& buf, bool writes,
                               const Located& self) {
  std::vector<std::string> names;
  post_order_visit(scope, [&](const Stmt& x) {
    const auto* b = x.as<BlockNode>();
    if (!b || b == block_of(self.stmt)) return;
    for (const Stmt& a : self.ancestors)
      if (a.get() == b) return;
    for (const BufferRegion& r : writes ? b->writes : b->reads)
      if (r.buffer().same_as(buf)) {
        names.push_back(b->name);
        return;
      }
  });
  std::vector<Located> out;
  for (const std::string& n : names) out.push_back(*locate_block(f.body(), n));
  return out;
}

// The index of the statement of `list` that is or holds `loc`'s statement.
int position_in(const std::vector<Stmt>& list, const Located& loc) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].same_as(loc.stmt)) return static_cast<int>(i);
    for (const Stmt& a : loc.ancestors)
      if (list[i].same_as(a)) return static_cast<int>(i);
  }
  KILN_ICHECK(false) << "block '" << block_of(loc.stmt)->name << "' is not in its scope";
  return -1;
}

// `root` without the block at `loc` and the loops that hold nothing else.
Stmt without_block(const Stmt& root, const Located& loc) {
  Stmt gone = loc.stmt;
  for (auto it = loc.ancestors.rbegin(); it != loc.ancestors.rend(); ++it) {
    const auto* f = it->as<ForNode>();
    if (!f || !f->body.same_as(gone)) break;
    gone = *it;
  }
  return replace_stmt(root, gone, no_op());
}

// The scope block `scope_stmt` with another body and without `buf`.
Stmt scope_without(const Stmt& scope_stmt, Stmt body, const Buffer& buf) {
  std::vector<Buffer> allocs;
  for (const Buffer& a : scope_stmt.as<BlockNode>()->alloc_buffers)
    if (!a.same_as(buf)) allocs.push_back(a);
  return block_with_body(scope_stmt, std::move(body), std::move(allocs));
}

// The store of a block whose one statement inlining can move: no reduction,
// a single store, no predicate. Null (and `store` set) when it is one.
ScheduleErrorPtr single_store(const char* P, const Located& loc, const BufferStoreNode*& store) {
  const BlockNode* b = block_of(loc.stmt);
  bool reduce = b->init.defined();
  for (const IterVar& iv : b->iter_vars) reduce |= iv.is_reduce();
  if (reduce) return schedule_error<NotDataParallelError>(P, "block " + q(b->name) + " is a reduction");
  store = b->body.as<BufferStoreNode>();
  if (!store || !b->alloc_buffers.empty())
    return schedule_error<InlineBodyError>(P, "the body of block " + q(b->name) + " is not a single buffer store");
  const Expr& pred = loc.stmt.as<BlockRealizeNode>()->predicate;
  if (pred.defined() && !is_one(pred))
    return schedule_error<InlineBodyError>(P, "block " + q(b->name) + " runs under a predicate");
  if (loads(store->value, store->buffer))
    return schedule_error<InlineBodyError>(
        P, "block " + q(b->name) + " reads the buffer " + q(store->buffer.name()) + " it writes");
  return nullptr;
}

// ---- compute_inline ----------------------------------------------------------

struct InlinePlan {
  Stmt scope_stmt;                         // the block that allocates the buffer
  const BufferStoreNode* store = nullptr;  // the producer's
  std::vector<Var> dim_vars;               // the iter var that indexes each dimension
};

ScheduleErrorPtr plan_inline(const PrimFunc& f, const Located& blk, InlinePlan& plan) {
  const BlockNode* b = block_of(blk.stmt);
  const std::string name = q(b->name);
  if (ScheduleErrorPtr err = single_store(kInline, blk, plan.store)) return err;
  const Buffer& buf = plan.store->buffer;
  std::optional<std::vector<Var>> dim_vars = as_iter_vars(plan.store->indices, b);
  if (!dim_vars)
    return schedule_error<InlineBodyError>(
        kInline, "block " + name + " does not store " + q(buf.name()) + " at its iter vars, each once");
  plan.dim_vars = std::move(*dim_vars);
  if (is_param(f, buf))
    return schedule_error<OutputBufferError>(
        kInline, "block " + name + " writes " + q(buf.name()) + ", a parameter of the function");
  const BlockNode* scope = allocating_block(blk, buf, &plan.scope_stmt);
  KILN_ICHECK(scope) << "buffer '" << buf.name() << "' is not allocated around the block that writes it";

  if (std::vector<Located> w = accessors(f, scope->body, buf, /*writes=*/true, blk); !w.empty())
    return schedule_error<NotSingleWriterError>(
        kInline, "buffer " + q(buf.name()) + " is also written by block " + q(block_of(w[0].stmt)->name));
  const std::vector<Located> consumers = accessors(f, scope->body, buf, /*writes=*/false, blk);
  if (consumers.empty())
    return schedule_error<NotFoundError>(kInline,
                                         "no block reads " + q(buf.name()) + ", which block " + name + " writes");

  // The consumers read the producer's inputs later than the producer did:
  // nothing may write them from the producer's nest on, and they must be
  // visible where the consumers are.
  const std::vector<Stmt> list = stmts_of(scope->body);
  const int pos = position_in(list, blk);
  for (const Buffer& in : loaded_buffers(plan.store->value)) {
    for (const Located& w : accessors(f, scope->body, in, /*writes=*/true, blk))
      if (position_in(list, w) >= pos)
        return schedule_error<DependentLoopError>(kInline, "block " + q(block_of(w.stmt)->name) + " writes " +
                                                               q(in.name()) + ", which block " + name +
                                                               " reads, after the nest of block " + name + " begins");
    for (const Located& c : consumers)
      if (!visible_at(f, c, in))
        return schedule_error<NotFoundError>(kInline, "buffer " + q(in.name()) + ", which block " + name +
                                                          " reads, is not allocated around block " +
                                                          q(block_of(c.stmt)->name));
  }
  return nullptr;
}

// Replaces each load of the producer's buffer by its value at the load's
// indices, and recomputes the regions of the blocks that read the buffer.
class Inliner : public StmtMutator {
 public:
  explicit Inliner(const InlinePlan& plan) : plan_(plan) {}
  using StmtMutator::mutate;

  Expr visit_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
    Expr r = StmtMutator::visit_BufferLoad(op, e);
    const auto* l = r.as<BufferLoadNode>();
    if (!l->buffer.same_as(plan_.store->buffer)) return r;
    std::vector<std::pair<Var, Expr>> map;
    for (size_t d = 0; d < plan_.dim_vars.size(); ++d) {
      const Var& v = plan_.dim_vars[d];
      const Expr& idx = l->indices[d];
      map.emplace_back(v, idx.dtype() == v.dtype() ? idx : cast(v.dtype(), idx));
    }
    return substitute(plan_.store->value, map);
  }

  Stmt visit_Block(const BlockNode* op, const Stmt& s) override {
    Stmt r = StmtMutator::visit_Block(op, s);
    for (const BufferRegion& read : op->reads)
      if (read.buffer().same_as(plan_.store->buffer)) return block_with_regions(fields_of(r.as<BlockNode>()));
    return r;
  }

 private:
  const InlinePlan& plan_;
};

// ---- reverse_compute_inline --------------------------------------------------

struct ReversePlan {
  Stmt scope_stmt;  // the block that allocates the buffer between
  Located producer;
  const BufferStoreNode* pstore = nullptr;                 // the producer's
  const BufferStoreNode* cstore = nullptr;                 // the consumer's
  std::vector<std::pair<Var, Expr>> consumer_to_producer;  // iter var -> the producer's
};

// The producer: the one block that writes a buffer the consumer reads.
ScheduleErrorPtr find_producer(const PrimFunc& f, const Located& blk, const Expr& value, Buffer& buf,
                               Located& producer) {
  const std::string name = q(block_of(blk.stmt)->name);
  std::vector<std::string> found;
  for (const Buffer& in : loaded_buffers(value)) {
    std::vector<Located> writers = accessors(f, f.body(), in, /*writes=*/true, blk);
    if (writers.size() > 1)
      return schedule_error<NotSingleWriterError>(
          kReverse, "buffer " + q(in.name()) + ", which block " + name + " reads, is written by blocks " +
                        q(block_of(writers[0].stmt)->name) + " and " + q(block_of(writers[1].stmt)->name));
    if (writers.empty()) continue;
    found.push_back(block_of(writers[0].stmt)->name);
    if (found.size() > 1)
      return schedule_error<NotSingleWriterError>(
          kReverse, "block " + name + " reads the outputs of blocks " + q(found[0]) + " and " + q(found[1]));
    buf = in;
    producer = writers[0];
  }
  if (found.empty())
    return schedule_error<NotFoundError>(kReverse, "block " + name + " reads no buffer that another block writes");
  return nullptr;
}

ScheduleErrorPtr plan_reverse(const PrimFunc& f, const Located& blk, ReversePlan& plan) {
  const BlockNode* c = block_of(blk.stmt);
  const std::string name = q(c->name);
  if (ScheduleErrorPtr err = single_store(kReverse, blk, plan.cstore)) return err;
  Buffer buf;
  if (ScheduleErrorPtr err = find_producer(f, blk, plan.cstore->value, buf, plan.producer)) return err;
  const BlockNode* p = block_of(plan.producer.stmt);
  const std::string pname = q(p->name), bname = q(buf.name());
  if (is_param(f, buf))
    return schedule_error<OutputBufferError>(kReverse,
                                             "block " + pname + " writes " + bname + ", a parameter of the function");
  const BlockNode* scope = allocating_block(blk, buf, &plan.scope_stmt);
  KILN_ICHECK(scope) << "buffer '" << buf.name() << "' is not allocated around the block that reads it";
  if (std::vector<Located> r = accessors(f, scope->body, buf, /*writes=*/false, blk); !r.empty())
    return schedule_error<NotSingleReaderError>(
        kReverse, "buffer " + bname + " is also read by block " + q(block_of(r[0].stmt)->name));
  if (ScheduleErrorPtr err = single_store(kReverse, plan.producer, plan.pstore)) return err;
  const std::optional<std::vector<Var>> pvars = as_iter_vars(plan.pstore->indices, p);
  if (!pvars)
    return schedule_error<InlineBodyError>(
        kReverse, "block " + pname + " does not store " + bname + " at its iter vars, each once");

  // Each load of the buffer is at the consumer's iter vars, each once, and
  // they range over what the producer writes.
  std::optional<std::vector<Var>> cvars;
  for (const BufferLoadNode* l : loads_of(plan.cstore->value, buf)) {
    std::optional<std::vector<Var>> vars = as_iter_vars(l->indices, c);
    if (!vars || (cvars && !same_vars(*vars, *cvars)))
      return schedule_error<InlineBodyError>(
          kReverse, "block " + name + " does not load " + bname + " at its iter vars, each once");
    cvars = std::move(vars);
  }
  auto dom = [](const BlockNode* b, const Var& v) {
    for (const IterVar& iv : b->iter_vars)
      if (iv.var().same_as(v)) return iv.dom();
    KILN_ICHECK(false) << "not an iter var";
    return Range();
  };
  plan.consumer_to_producer.clear();
  for (size_t d = 0; d < cvars->size(); ++d) {
    const Var &cv = (*cvars)[d], &pv = (*pvars)[d];
    if (!structural_equal(dom(c, cv), dom(p, pv)))
      return schedule_error<InlineBodyError>(kReverse, "block " + name + " ranges over another part of " + bname +
                                                           " than block " + pname + " writes in dimension " +
                                                           std::to_string(d));
    plan.consumer_to_producer.emplace_back(cv, pv);
  }

  // The consumer's buffer is now written where the producer is: nothing
  // else may use it before both nests are done. What the consumer reads
  // must be visible there.
  const Buffer& out = plan.cstore->buffer;
  const std::vector<Stmt> list = stmts_of(scope->body);
  const int last = std::max(position_in(list, blk), position_in(list, plan.producer));
  for (bool writes : {true, false})
    for (const Located& o : accessors(f, scope->body, out, writes, blk))
      if (position_in(list, o) <= last)
        return schedule_error<DependentLoopError>(
            kReverse, "block " + q(block_of(o.stmt)->name) + " uses " + q(out.name()) + ", which block " + name +
                          " writes, before blocks " + pname + " and " + name + " are done");
  std::vector<Buffer> used = loaded_buffers(plan.cstore->value);
  used.push_back(out);
  for (const Buffer& u : used)
    if (!visible_at(f, plan.producer, u))
      return schedule_error<NotFoundError>(kReverse, "buffer " + q(u.name()) + ", which block " + name +
                                                         " uses, is not allocated around block " + pname);
  return nullptr;
}

// The producer's block storing the consumer's value into the consumer's buffer.
Stmt merged_producer(const ReversePlan& plan) {
  const Buffer& buf = plan.pstore->buffer;
  class LoadReplacer : public StmtMutator {
   public:
    LoadReplacer(const Buffer& buf, const Expr& value) : buf_(buf), value_(value) {}
    using StmtMutator::mutate;
    Expr visit_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
      return op->buffer.same_as(buf_) ? value_ : StmtMutator::visit_BufferLoad(op, e);
    }

   private:
    const Buffer& buf_;
    const Expr& value_;
  };
  Expr value = LoadReplacer(buf, plan.pstore->value).mutate(plan.cstore->value);
  value = substitute(value, plan.consumer_to_producer);
  std::vector<Expr> indices;
  for (const Expr& i : plan.cstore->indices) indices.push_back(substitute(i, plan.consumer_to_producer));

  const auto* realize = plan.producer.stmt.as<BlockRealizeNode>();
  BlockFields fields = fields_of(block_of(plan.producer.stmt));
  fields.body = buffer_store(plan.cstore->buffer, value, indices);
  return block_realize(realize->iter_values, realize->predicate, block_with_regions(fields));
}

}  // namespace

ScheduleErrorPtr compute_inline_error(const PrimFunc& f, const Located& block) {
  InlinePlan plan;
  return plan_inline(f, block, plan);
}

PrimFunc inline_into_consumers(const PrimFunc& f, const Located& blk) {
  InlinePlan plan;
  if (ScheduleErrorPtr err = plan_inline(f, blk, plan)) err->raise();
  const BlockNode* scope = plan.scope_stmt.as<BlockNode>();
  Stmt body = Inliner(plan).mutate(without_block(scope->body, blk));
  return f.with_body(replace_stmt(f.body(), plan.scope_stmt, scope_without(plan.scope_stmt, body, plan.store->buffer)));
}

PrimFunc inline_into_producer(const PrimFunc& f, const Located& blk) {
  ReversePlan plan;
  if (ScheduleErrorPtr err = plan_reverse(f, blk, plan)) err->raise();
  const BlockNode* scope = plan.scope_stmt.as<BlockNode>();
  Stmt body = without_block(scope->body, blk);
  body = replace_stmt(body, plan.producer.stmt, merged_producer(plan));
  return f.with_body(
      replace_stmt(f.body(), plan.scope_stmt, scope_without(plan.scope_stmt, body, plan.pstore->buffer)));
}

void Schedule::compute_inline(BlockRV block) {
  update(inline_into_consumers(func_, block_location(block, kInline)), kInline);
  record(inst::compute_inline, {block.rv()}, NoAttrs{}, {});
}

void Schedule::reverse_compute_inline(BlockRV block) {
  update(inline_into_producer(func_, block_location(block, kReverse)), kReverse);
  record(inst::reverse_compute_inline, {block.rv()}, NoAttrs{}, {});
}

namespace inst {
namespace {
template <void (Schedule::*Method)(BlockRV)>
std::vector<RV> apply_inline(Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                             const Decision&) {
  replay::expect_inputs(in, 1);
  (sch.*Method)(replay::block(in, 0));
  return {};
}
}  // namespace
const InstructionKind compute_inline{"compute_inline", false, apply_inline<&Schedule::compute_inline>};
const InstructionKind reverse_compute_inline{"reverse_compute_inline", false,
                                             apply_inline<&Schedule::reverse_compute_inline>};
}  // namespace inst
}  // namespace kiln
