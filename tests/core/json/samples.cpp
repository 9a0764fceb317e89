#include "samples.h"

namespace kiln::testing {
namespace {

struct Vars {
  Var x{"x"}, y{"y"};
  Var f{"f", DataType::Float32()};
  Buffer A{"A", DataType::Float32(), {16, 32}};
};

}  // namespace

Expr sample_expr(ExprKind k) {
  Vars v;
  switch (k) {
    case ExprKind::IntImm: return int_imm(DataType::Int64(), 7);
    case ExprKind::FloatImm: return float_imm(DataType::Float32(), 1.5);
    case ExprKind::StringImm: return string_imm("pragma \"x\"");
    case ExprKind::Var: return Var("n", DataType::Int64());
    case ExprKind::Not: return !(v.x < v.y);
    case ExprKind::Select: return select(v.x < v.y, v.x, v.y + 1);
    case ExprKind::Cast: return cast(DataType::Float32(), v.x);
    case ExprKind::Ramp: return ramp(v.x * 4, 1, 4);
    case ExprKind::Broadcast: return broadcast(v.f, 8);
    case ExprKind::Let: {
      Var t("t");
      return let(t, v.x + 1, t * t);
    }
    case ExprKind::Call: return call(Intrinsic::fma, {v.f, v.f, float_imm(DataType::Float32(), 2)});
    case ExprKind::BufferLoad: return buffer_load(v.A, {v.x, v.y + 1});
    case ExprKind::Reduce: {
      Var r("r");
      return reduce(ReduceKind::kSum, buffer_load(v.A, {v.x, r}), {IterVar(r, Range(0, 32), IterType::kReduce)});
    }
    case ExprKind::And:
    case ExprKind::Or: return make_binary(k, v.x < v.y, v.y < 4);
#define X(Name, Sym) case ExprKind::Name:
      KILN_FOR_EACH_BINARY_EXPR(X)
      KILN_FOR_EACH_CMP_EXPR(X)
#undef X
      return make_binary(k, v.x, v.y + 2);
  }
  return Expr();
}

Stmt sample_stmt(StmtKind k) {
  Vars v;
  Var i("i"), j("j");
  Stmt store = buffer_store(v.A, buffer_load(v.A, {i, j}) + 1.0f, {i, j});
  switch (k) {
    case StmtKind::BufferStore: return store;
    case StmtKind::For:
      return for_loop(i, 0, 16, ForKind::kParallel, for_loop(j, 0, 32, ForKind::kSerial, store), "",
                      {{"pragma_auto_unroll_max_step", Expr(16)}});
    case StmtKind::SeqStmt: return seq({store, evaluate(i + 1)});
    case StmtKind::IfThenElse: return if_then_else(i < 8, evaluate(i), evaluate(i * 2));
    case StmtKind::LetStmt: {
      Var t("t");
      return let_stmt(t, Expr(3), buffer_store(v.A, 0.0f, {t, t + 1}));
    }
    case StmtKind::Allocate: {
      Buffer tmp("tmp", DataType::Float32(), {8}, "local");
      return allocate(tmp, seq({buffer_store(tmp, 1.0f, {Expr(0)}),
                                buffer_store(v.A, buffer_load(tmp, {Expr(0)}), {Expr(0), Expr(0)})}));
    }
    case StmtKind::Evaluate: return evaluate(call(Intrinsic::exp, {v.f}));
    case StmtKind::Barrier: return barrier("shared");
    case StmtKind::Prefetch: return prefetch(v.A, {v.x, v.y + 1});
    case StmtKind::Block:
    case StmtKind::BlockRealize: {
      Var vi("vi"), vj("vj");
      Stmt body = buffer_store(v.A, buffer_load(v.A, {vi, vj}) * 2.0f, {vi, vj});
      Stmt b = block({.name = "scale",
                      .iter_vars = {IterVar(vi, Range(0, 16), IterType::kSpatial),
                                    IterVar(vj, Range(0, 32), IterType::kSpatial)},
                      .reads = {BufferRegion(v.A, {Range(vi, 1), Range(vj, 1)})},
                      .writes = {BufferRegion(v.A, {Range(vi, 1), Range(vj, 1)})},
                      .body = body,
                      .annotations = {{"meta", string_imm("x")}}});
      if (k == StmtKind::Block) return b;
      return block_realize({i, j}, i < 15, b);
    }
  }
  return Stmt();
}

PrimFunc sample_matmul() {
  DataType f32 = DataType::Float32();
  Buffer A("A", f32, {64, 32}), B("B", f32, {32, 16}), C("C", f32, {64, 16});
  Buffer acc("acc", f32, {1}, "local");
  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt init = buffer_store(C, 0.0f, {vi, vj});
  Stmt update = buffer_store(C, buffer_load(C, {vi, vj}) + buffer_load(A, {vi, vk}) * buffer_load(B, {vk, vj}),
                             {vi, vj});
  Stmt c = block({.name = "C",
                  .iter_vars = {IterVar(vi, Range(0, 64), IterType::kSpatial),
                                IterVar(vj, Range(0, 16), IterType::kSpatial),
                                IterVar(vk, Range(0, 32), IterType::kReduce)},
                  .reads = {BufferRegion(A, {Range(vi, 1), Range(vk, 1)}), BufferRegion(B, {Range(vk, 1), Range(vj, 1)})},
                  .writes = {BufferRegion(C, {Range(vi, 1), Range(vj, 1)})},
                  .init = init,
                  .body = update});
  Stmt loops = for_loop(
      i, 0, 64, ForKind::kSerial,
      for_loop(j, 0, 16, ForKind::kSerial, for_loop(k, 0, 32, ForKind::kSerial, block_realize({i, j, k}, Expr(), c))));
  Stmt root = block({.name = "root", .body = loops, .alloc_buffers = {acc}});
  return PrimFunc("matmul", {A, B, C}, block_realize({}, Expr(), root));
}

}  // namespace kiln::testing
