// fuse: a chain of nested loops becomes one loop.
//
//   for i in range(4):                 sch.fuse({i, j})
//     for j in range(8):      ->       for i_j_fused in range(32):
//       block(vi = i, vj = j)            block(vi = i_j_fused // 8, vj = i_j_fused % 8)
//
// Each loop must be the only statement in the body of the one above it, and
// every extent must be a constant. The fused loop is serial.
#include "tir/functor.h"
#include "tir/schedule/bindings.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

struct FuseResult {
  PrimFunc func;
  Var loop;
};

FuseResult fuse_loops(const PrimFunc& f, const std::vector<Stmt>& loops) {
  if (loops.empty()) throw BadArgumentError("fuse", "no loops given");
  std::vector<const ForNode*> ops;
  std::string name;
  for (size_t i = 0; i < loops.size(); ++i) {
    const auto* op = loops[i].as<ForNode>();
    if (i > 0 && !ops.back()->body.same_as(loops[i])) {
      throw LoopsNotAdjacentError("fuse", "loop '" + op->loop_var.name() + "' is not the only statement inside loop '" +
                                              ops.back()->loop_var.name() + "'");
    }
    if (!as_const_int(op->extent))
      throw LoopShapeError("fuse", "loop '" + op->loop_var.name() + "' has no constant extent");
    for (const ForNode* prev : ops)
      if (uses_var(op->min, prev->loop_var) || uses_var(op->extent, prev->loop_var))
        throw DependentLoopError("fuse", "the bounds of loop '" + op->loop_var.name() + "' depend on loop '" +
                                             prev->loop_var.name() + "'");
    ops.push_back(op);
    name += op->loop_var.name() + "_";
  }
  const DataType t = ops[0]->loop_var.dtype();
  Var fused(name + "fused", t);
  std::vector<std::pair<Var, Expr>> map;
  int64_t stride = 1;
  for (size_t i = ops.size(); i-- > 0;) {
    const int64_t extent = *as_const_int(ops[i]->extent);
    Expr v = stride == 1 ? Expr(fused) : floordiv(fused, int_imm(t, stride));
    if (i > 0) v = floormod(v, int_imm(t, extent));
    map.emplace_back(ops[i]->loop_var, is_zero(ops[i]->min) ? v : add(ops[i]->min, v));
    stride *= extent;
  }
  Stmt body = substitute_loop_vars(ops.back()->body, map);
  body = simplify_bindings(for_loop(fused, int_imm(t, 0), int_imm(t, stride), ForKind::kSerial, body), {fused});
  return {f.with_body(replace_stmt(f.body(), loops[0], body)), fused};
}

}  // namespace

LoopRV Schedule::fuse(const std::vector<LoopRV>& loops) {
  std::vector<Stmt> stmts;
  for (LoopRV l : loops) stmts.push_back(loop_stmt(l, "fuse"));
  FuseResult r = fuse_loops(func_, stmts);
  update(r.func, "fuse");
  LoopRV out = make_loop_rv(r.loop);
  std::vector<InstInput> inputs;
  for (LoopRV l : loops) inputs.emplace_back(l.rv());
  record(inst::fuse, std::move(inputs), NoAttrs{}, {out.rv()});
  return out;
}

namespace inst {
const InstructionKind fuse{"fuse", false,
                           [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                              const Decision&) { return std::vector<RV>{sch.fuse(replay::loops(in)).rv()}; }};
}  // namespace inst
}  // namespace kiln
