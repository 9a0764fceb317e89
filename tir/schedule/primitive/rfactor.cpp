// rfactor: factor a reduction over one of its loops, so that the partial
// reductions along that loop are independent and the loop can run in
// parallel or as a vector.
//
//   for i, k_0, k_1:                            sch.rfactor(k_1, 1)
//     block B(vi = i, vk = k_0 * 4 + k_1):  ->  for i, k_0, k_1:
//       init: B[vi] = 0                           block B_rf(vi = i, v_k_0 = k_0, v_k_1 = k_1):
//       B[vi] = B[vi] + A[vi, vk]                   init: B_rf[vi, v_k_1] = 0
//                                                   B_rf[vi, v_k_1] = B_rf[vi, v_k_1] + A[vi, v_k_0 * 4 + v_k_1]
//                                               for i, k_1:
//                                                 block B(vi = i, v_k_1 = k_1):
//                                                   init: B[vi] = 0
//                                                   B[vi] = B[vi] + B_rf[vi, v_k_1]
//
// The rf block (`<name>_rf`, returned) keeps the whole nest. In it the loop
// binds a new spatial axis, which indexes a new buffer `<buf>_rf`: the
// written buffer with a dimension of the loop's extent inserted at
// factor_axis. Each reduction axis the loop feeds is replaced by one axis per
// loop of its binding. The original block becomes the write-back: after the
// nest, over copies of the loops that feed its spatial axes and of the
// factored loop (now a serial reduction), it folds <buf>_rf into the buffer
// with the same combiner and init. The rf block's init is the combiner's
// identity, so the original init still counts exactly once.
//
// Legal when the update's combiner is commutative and associative
// (reducer.h), the loop feeds only reduction axes (or is a unit loop, which
// feeds nothing: the partial results then have a dimension of 1), and no other block shares
// the nest (the write-back runs after all of it). A predicate is allowed only
// on loops that feed spatial axes: one that skipped a whole partial slot
// would leave it uninitialised for the write-back.
#include <algorithm>

#include "core/structural.h"
#include "tir/functor.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/replay.h"
#include "tir/schedule/reducer.h"

namespace kiln {
namespace {

const char* const P = "rfactor";

std::string q(const std::string& s) { return "'" + s + "'"; }

std::vector<const BlockNode*> blocks_under(const Stmt& s) {
  std::vector<const BlockNode*> out;
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* b = x.as<BlockNode>()) out.push_back(b);
  });
  return out;
}

std::string block_list(const std::vector<const BlockNode*>& bs, const BlockNode* except) {
  std::string s;
  for (const BlockNode* b : bs)
    if (b != except) s += (s.empty() ? "" : ", ") + q(b->name);
  return s;
}

std::vector<Expr> with_axis(std::vector<Expr> idx, int axis, Expr e) {
  idx.insert(idx.begin() + axis, std::move(e));
  return idx;
}

bool same_indices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i])) return false;
  return true;
}

// The update of a reduction block, checked: an init and an update storing to
// the same element, indexed by spatial axes only.
ReductionUpdate reduction_update(const BlockNode* b) {
  const auto* store = b->body.as<BufferStoreNode>();
  const auto* init = b->init.defined() ? b->init.as<BufferStoreNode>() : nullptr;
  if (!store || !init || !init->buffer.same_as(store->buffer) || !same_indices(init->indices, store->indices))
    throw NotReductionBlockError(P, "block " + q(b->name) +
                                        " is not a reduction: it needs an init and an update of one buffer element");
  for (const IterVar& iv : b->iter_vars) {
    if (!iv.is_reduce()) continue;
    bool used = uses_var(init->value, iv.var());
    for (const Expr& e : store->indices) used |= uses_var(e, iv.var());
    if (used)
      throw NotReductionBlockError(P, "block " + q(b->name) + " indexes or initialises its result with reduction axis " +
                                          q(iv.var().name()));
  }
  std::optional<ReductionUpdate> u = match_reduction_update(store);
  if (!u)
    throw UnknownCombinerError(P, "the update of block " + q(b->name) +
                                      " is not `" + store->buffer.name() +
                                      "[...] = " + store->buffer.name() +
                                      "[...] <op> value` with op add, multiply, min or max");
  return *u;
}

struct RFactorResult {
  PrimFunc func;
  std::string rf_block;
};

RFactorResult rfactor_loop(const PrimFunc& f, const Stmt& loop, int factor_axis) {
  const auto* rl = loop.as<ForNode>();
  const std::string lname = q(rl->loop_var.name());
  const std::vector<const BlockNode*> under = blocks_under(rl->body);
  if (under.empty()) throw NotReductionBlockError(P, "loop " + lname + " has no block under it");
  if (under.size() > 1)
    throw NotSingleBlockError(P, "loop " + lname + " holds several blocks: " + block_list(under, nullptr));
  const BlockNode* b = under[0];
  const std::string bname = q(b->name);
  const Located blk = *locate_block(f.body(), b->name);
  const auto* realize = blk.stmt.as<BlockRealizeNode>();
  const ReductionUpdate update = reduction_update(b);
  const auto* store = b->body.as<BufferStoreNode>();
  const Buffer buf = store->buffer;

  auto axis_fed = [&](const Var& v, bool reduce) -> const IterVar* {
    for (size_t k = 0; k < b->iter_vars.size(); ++k)
      if (b->iter_vars[k].is_reduce() == reduce && uses_var(realize->iter_values[k], v)) return &b->iter_vars[k];
    return nullptr;
  };
  if (const IterVar* s = axis_fed(rl->loop_var, false))
    throw NotReductionLoopError(P, "loop " + lname + " feeds spatial axis " + q(s->var().name()) + " of block " + bname);
  const int64_t* rf_extent = as_const_int(rl->extent);
  // A unit loop (a split's piece of 1, which the bindings simplify away)
  // feeds nothing, and factoring over it is the plain reduction with a
  // partial-result dimension of 1: allowed, so that a sampled split never
  // makes the rule's sketch fail.
  const bool unit = is_zero(rl->min) && rf_extent && *rf_extent == 1;
  if (!unit && !axis_fed(rl->loop_var, true))
    throw NotReductionLoopError(P, "loop " + lname + " feeds no reduction axis of block " + bname);
  if (factor_axis < 0 || factor_axis > buf.ndim())
    throw BadArgumentError(P, "factor_axis " + std::to_string(factor_axis) + " is outside [0, " +
                                  std::to_string(buf.ndim()) + "] for buffer " + q(buf.name()) + " of block " + bname);
  if (!is_zero(rl->min) || !rf_extent)
    throw LoopShapeError(P, "loop " + lname + " needs a zero start and a constant extent");

  const Stmt top = top_of_nest(blk);
  const std::vector<const BlockNode*> in_nest = blocks_under(top);
  if (in_nest.size() > 1)
    throw NotSingleBlockError(P, "the loop nest of block " + bname + " also holds " + block_list(in_nest, b));
  Stmt encl_stmt;
  const BlockNode* encl = enclosing_block(blk, &encl_stmt);
  if (!encl) throw BadArgumentError(P, "block " + bname + " is not inside another block");

  // Which loops of the nest feed spatial axes: the write-back keeps those.
  const std::vector<Stmt> loops = enclosing_loops(blk);
  const std::vector<Var> lvars = loop_vars(loops);
  std::vector<bool> spatial(loops.size());
  for (size_t i = 0; i < loops.size(); ++i) {
    spatial[i] = axis_fed(lvars[i], false) != nullptr;
    if (spatial[i] && axis_fed(lvars[i], true))
      throw LoopShapeError(P, "loop " + q(lvars[i].name()) + " feeds both spatial and reduction axes of block " + bname);
    if (!spatial[i] && uses_var(realize->predicate, lvars[i]))
      throw LoopShapeError(P, "the predicate of block " + bname + " involves loop " + q(lvars[i].name()) +
                                  ", which feeds no spatial axis");
  }

  // The rf block: each reduction axis the loop feeds becomes one axis per
  // loop of its binding, the factored loop's spatial.
  std::vector<IterVar> rf_ivs;
  std::vector<Expr> rf_values;
  std::vector<std::pair<Var, Expr>> loop_to_axis, reduce_to_binding;
  Var rf_var;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    const Expr& value = realize->iter_values[k];
    if (!iv.is_reduce() || !uses_var(value, rl->loop_var)) {
      rf_ivs.push_back(iv);
      rf_values.push_back(value);
      continue;
    }
    std::string stranger;
    post_order_visit(value, [&](const Expr& e) {
      const auto* v = e.as<VarNode>();
      if (v && std::none_of(lvars.begin(), lvars.end(), [&](const Var& l) { return l.get() == v; })) stranger = v->name;
    });
    if (!stranger.empty())
      throw LoopShapeError(P, "axis " + q(iv.var().name()) + " of block " + bname + " is bound to " + q(stranger) +
                                  ", which is not a loop of its nest");
    for (size_t i = 0; i < loops.size(); ++i) {
      const Var& lv = lvars[i];
      bool made = std::any_of(loop_to_axis.begin(), loop_to_axis.end(), [&](const auto& m) { return m.first.same_as(lv); });
      if (made || !uses_var(value, lv)) continue;
      const auto* op = loops[i].as<ForNode>();
      for (const Var& other : lvars)
        if (uses_var(op->min, other) || uses_var(op->extent, other))
          throw DependentLoopError(P, "the bounds of loop " + q(lv.name()) + " depend on loop " + q(other.name()));
      Var nv("v_" + lv.name(), lv.dtype());
      const bool is_rf = lv.same_as(rl->loop_var);
      if (is_rf) rf_var = nv;
      rf_ivs.emplace_back(nv, Range(op->min, op->extent), is_rf ? IterType::kSpatial : IterType::kReduce);
      rf_values.push_back(lv);
      loop_to_axis.emplace_back(lv, nv);
    }
    reduce_to_binding.emplace_back(iv.var(), substitute(value, loop_to_axis));
  }
  if (!rf_var.defined()) {  // a unit loop: its axis of extent 1
    rf_var = Var("v_" + rl->loop_var.name(), rl->loop_var.dtype());
    rf_ivs.emplace_back(rf_var, Range(rl->min, rl->extent), IterType::kSpatial);
    rf_values.push_back(rl->loop_var);
  }
  std::vector<Expr> rf_shape = with_axis(buf.shape(), factor_axis, rl->extent);
  Buffer rf_buf(buf.name() + "_rf", buf.dtype(), rf_shape, buf->scope);
  const std::vector<Expr> rf_idx = with_axis(store->indices, factor_axis, rf_var);
  BlockFields rf;
  rf.name = unique_block_name(f.body(), b->name + "_rf");
  rf.iter_vars = rf_ivs;
  rf.init = buffer_store(rf_buf, update.reducer.identity, rf_idx);
  rf.body = buffer_store(rf_buf,
                         update.reducer.combine(buffer_load(rf_buf, rf_idx), substitute(update.value, reduce_to_binding)),
                         rf_idx);
  rf.alloc_buffers = b->alloc_buffers;
  rf.annotations = b->annotations;
  Stmt rf_realize = block_realize(rf_values, realize->predicate, block_with_regions(rf));

  // The write-back: the spatial loops and the factored loop, fresh.
  std::vector<std::pair<Var, Expr>> wb_loops;
  std::vector<const ForNode*> kept;
  std::vector<Var> kept_vars;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (!spatial[i] && !loops[i].same_as(loop)) continue;
    kept.push_back(loops[i].as<ForNode>());
    kept_vars.emplace_back(lvars[i].name(), lvars[i].dtype());
    wb_loops.emplace_back(lvars[i], kept_vars.back());
  }
  for (size_t i = 0; i < loops.size(); ++i) {
    if (spatial[i] || loops[i].same_as(loop)) continue;
    for (const ForNode* op : kept)
      if (uses_var(op->min, lvars[i]) || uses_var(op->extent, lvars[i]))
        throw DependentLoopError(P, "the bounds of loop " + q(op->loop_var.name()) + " depend on loop " +
                                        q(lvars[i].name()) + ", which feeds no spatial axis");
  }
  std::vector<IterVar> wb_ivs;
  std::vector<Expr> wb_values;
  std::vector<std::pair<Var, Expr>> rename;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    if (iv.is_reduce()) continue;
    Var nv(iv.var().name(), iv.var().dtype());
    wb_ivs.emplace_back(nv, iv.dom(), IterType::kSpatial);
    wb_values.push_back(substitute(realize->iter_values[k], wb_loops));
    rename.emplace_back(iv.var(), nv);
  }
  Var wb_rvar("v_" + rl->loop_var.name(), rl->loop_var.dtype());
  wb_ivs.emplace_back(wb_rvar, Range(rl->min, rl->extent), IterType::kReduce);
  wb_values.push_back(substitute(rl->loop_var, wb_loops));
  std::vector<Expr> wb_idx;
  for (const Expr& e : store->indices) wb_idx.push_back(substitute(e, rename));
  BlockFields wb;
  wb.name = b->name;
  wb.iter_vars = wb_ivs;
  wb.init = substitute(b->init, rename);
  wb.body = buffer_store(
      buf, update.reducer.combine(buffer_load(buf, wb_idx), buffer_load(rf_buf, with_axis(wb_idx, factor_axis, wb_rvar))),
      wb_idx);
  Stmt wb_nest = block_realize(wb_values, substitute(realize->predicate, wb_loops), block_with_regions(wb));
  for (size_t i = kept.size(); i-- > 0;) {
    const ForNode* op = kept[i];
    const Var& nv = kept_vars[i];
    if (op == rl)
      wb_nest = for_loop(nv, op->min, op->extent, ForKind::kSerial, wb_nest);
    else
      wb_nest = for_loop(nv, substitute(op->min, wb_loops), substitute(op->extent, wb_loops), op->for_kind, wb_nest,
                         op->thread_tag, op->annotations);
  }

  std::vector<Buffer> allocs = encl->alloc_buffers;
  allocs.push_back(rf_buf);
  Stmt nest = seq({replace_stmt(top, blk.stmt, rf_realize), wb_nest});
  Stmt new_encl = block_with_body(encl_stmt, replace_stmt(encl->body, top, nest), allocs);
  return {f.with_body(replace_stmt(f.body(), encl_stmt, new_encl)), rf.name};
}

}  // namespace

BlockRV Schedule::rfactor(LoopRV loop, int factor_axis) {
  RFactorResult r = rfactor_loop(func_, loop_stmt(loop, "rfactor"), factor_axis);
  update(r.func, "rfactor");
  BlockRV out = make_block_rv(r.rf_block);
  record(inst::rfactor, {loop.rv()}, RFactorAttrs{factor_axis}, {out.rv()});
  return out;
}

namespace inst {
const InstructionKind rfactor{
    .name = "rfactor",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 1);
      const int axis = static_cast<int>(replay::attrs<RFactorAttrs>(attrs, "rfactor").factor_axis);
      return std::vector<RV>{sch.rfactor(replay::loop(in, 0), axis).rv()};
    },
    .read_attrs = attrs_from_json<RFactorAttrs>};
}  // namespace inst
}  // namespace kiln
