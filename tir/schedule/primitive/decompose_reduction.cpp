// decompose_reduction: take a reduction's init out of its block, into a block
// of its own placed before a given loop.
//
//   for i, k:                           sch.decompose_reduction(C, k)
//     block C(vi = i, vk = k):
//       init: C[vi] = 0          ->     for i:
//       C[vi] += A[vi, vk]                block C_init(vi = i): C[vi] = 0
//                                         for k:
//                                           block C(vi = i, vk = k): C[vi] += A[vi, vk]
//
// Lowered, the init then runs once per output element before the loop
// instead of behind an `if k == 0` inside it. The init block gets copies of
// the loops at and below `loop` that feed the block's spatial axes (named
// with an `_init` suffix, of the same kind); loops that feed only reduction
// axes are left out. A loop that feeds both cannot be split that way, and
// `loop` must lie above every loop that feeds a reduction axis.
#include "tir/functor.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

struct DecomposeResult {
  PrimFunc func;
  std::string init_block;
};

DecomposeResult decompose(const PrimFunc& f, const Located& blk, const Stmt& loop) {
  const char* const P = "decompose_reduction";
  const auto* realize = blk.stmt.as<BlockRealizeNode>();
  const BlockNode* b = block_of(blk.stmt);
  if (!b->init.defined()) throw BadArgumentError(P, "block '" + b->name + "' has no init");
  const std::vector<Stmt> loops = enclosing_loops(blk);
  size_t at = loops.size();
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].same_as(loop)) at = i;
  const auto* lop = loop.as<ForNode>();
  if (at == loops.size())
    throw NotFoundError(P, "loop '" + lop->loop_var.name() + "' is not above block '" + b->name + "'");

  // The init must run before every step of the reduction: no loop above
  // `loop` may feed a reduction axis.
  for (size_t i = 0; i < at; ++i) {
    const auto* op = loops[i].as<ForNode>();
    for (size_t k = 0; k < b->iter_vars.size(); ++k)
      if (b->iter_vars[k].is_reduce() && uses_var(realize->iter_values[k], op->loop_var))
        throw DependentLoopError(P, "loop '" + op->loop_var.name() + "' above loop '" + lop->loop_var.name() +
                                        "' feeds reduction axis '" + b->iter_vars[k].var().name() + "' of block '" +
                                        b->name + "'");
  }

  // Loops at and below `loop`: which feed spatial axes, which reduction axes.
  std::vector<std::pair<Var, Expr>> init_map;  // old loop var -> new var (kept) or min (dropped)
  std::vector<const ForNode*> kept;
  std::vector<Var> kept_vars;
  for (size_t i = at; i < loops.size(); ++i) {
    const auto* op = loops[i].as<ForNode>();
    bool spatial = false, reduce = false;
    for (size_t k = 0; k < b->iter_vars.size(); ++k) {
      if (!uses_var(realize->iter_values[k], op->loop_var)) continue;
      (b->iter_vars[k].is_reduce() ? reduce : spatial) = true;
    }
    if (spatial && reduce)
      throw LoopShapeError(P, "loop '" + op->loop_var.name() + "' feeds both spatial and reduction axes of block '" +
                                  b->name + "'");
    if (spatial) {
      kept.push_back(op);
      kept_vars.emplace_back(op->loop_var.name() + "_init", op->loop_var.dtype());
      init_map.emplace_back(op->loop_var, kept_vars.back());
    } else {
      init_map.emplace_back(op->loop_var, op->min);
    }
  }
  for (const ForNode* op : kept)
    for (const ForNode* other : kept)
      if (uses_var(op->min, other->loop_var) || uses_var(op->extent, other->loop_var))
        throw DependentLoopError(P, "the bounds of loop '" + op->loop_var.name() + "' depend on loop '" +
                                        other->loop_var.name() + "'");

  // The init block: the spatial axes, freshly named, and the init as body.
  std::vector<IterVar> ivs;
  std::vector<Expr> values;
  std::vector<std::pair<Var, Expr>> rename;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    if (iv.is_reduce()) continue;
    Var v(iv.var().name() + "_init", iv.var().dtype());
    ivs.emplace_back(v, iv.dom(), IterType::kSpatial);
    values.push_back(substitute(realize->iter_values[k], init_map));
    rename.emplace_back(iv.var(), v);
  }
  const std::string init_name = unique_block_name(f.body(), b->name + "_init");
  BlockFields init_fields;
  init_fields.name = init_name;
  init_fields.iter_vars = ivs;
  init_fields.body = substitute(b->init, rename);
  Stmt init_nest = block_realize(values, substitute(realize->predicate, init_map), block_with_regions(init_fields));
  for (size_t i = kept.size(); i-- > 0;) {
    const ForNode* op = kept[i];
    init_nest = for_loop(kept_vars[i], op->min, op->extent, op->for_kind, init_nest, op->thread_tag, op->annotations);
  }

  // The update block: the same block without its init, so it now reads its
  // accumulator.
  BlockFields update = fields_of(b);
  update.init = Stmt();
  Stmt new_realize = block_realize(realize->iter_values, realize->predicate, block_with_regions(update));
  Stmt new_loop = replace_stmt(loop, blk.stmt, new_realize);
  return {f.with_body(replace_stmt(f.body(), loop, seq({init_nest, new_loop}))), init_name};
}

}  // namespace

BlockRV Schedule::decompose_reduction(BlockRV block, LoopRV loop) {
  Stmt l = loop_stmt(loop, "decompose_reduction");
  DecomposeResult r = decompose(func_, block_location(block, "decompose_reduction"), l);
  update(r.func, "decompose_reduction");
  BlockRV out = make_block_rv(r.init_block);
  record(inst::decompose_reduction, {block.rv(), loop.rv()}, NoAttrs{}, {out.rv()});
  return out;
}

namespace inst {
const InstructionKind decompose_reduction{
    "decompose_reduction", false,
    [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&, const Decision&) {
      replay::expect_inputs(in, 2);
      return std::vector<RV>{sch.decompose_reduction(replay::block(in, 0), replay::loop(in, 1)).rv()};
    }};
}  // namespace inst
}  // namespace kiln
