// The interpreter on block-form programs, compared with plain C++ loops.
#include <gtest/gtest.h>

#include "test_programs.h"

namespace kiln {
namespace {

using test::host;
using test::kF32;
using test::loop;

TEST(InterpBlock, MatmulWithInitMatchesLoops) {
  const int n = 7, m = 5, l = 9;
  auto a = test::ramp_data(n * l, 1), b = test::ramp_data(l * m, 2);
  std::vector<float> c(n * m, 123.0f);  // init must overwrite this
  interpret(test::matmul_block(n, m, l), {host(a, kF32, {n, l}), host(b, kF32, {l, m}), host(c, kF32, {n, m})});
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < l; ++k) acc = acc + a[i * l + k] * b[k * m + j];
      EXPECT_EQ(c[i * m + j], acc) << "at " << i << ", " << j;  // same float32 operations, same order
    }
  }
}

TEST(InterpBlock, CompiledOnceRunsManyTimes) {
  Interpreter interp(test::matmul_block(3, 3, 3));
  for (int seed = 0; seed < 3; ++seed) {
    auto a = test::ramp_data(9, seed), b = test::ramp_data(9, seed + 10);
    std::vector<float> c(9);
    interp.run({host(a, kF32, {3, 3}), host(b, kF32, {3, 3}), host(c, kF32, {3, 3})});
    float acc = 0.0f;
    for (int k = 0; k < 3; ++k) acc = acc + a[3 + k] * b[k * 3 + 2];
    EXPECT_EQ(c[1 * 3 + 2], acc);
  }
}

// B = A * 2 into an intermediate (padded by storage_align), then C = B + 1.
TEST(InterpBlock, TwoStagesThroughAnAllocBuffer) {
  const int n = 6, m = 5;
  Buffer A("A", kF32, {Expr(n), Expr(m)}), C("C", kF32, {Expr(n), Expr(m)});
  auto node = std::make_shared<BufferNode>(*Buffer("T", kF32, {Expr(n), Expr(m)}));
  node->align_factor = 8;
  node->align_offset = 1;
  Buffer T(ObjectPtr(std::move(node)));
  Var i("i"), j("j"), vi("vi"), vj("vj"), i2("i2"), j2("j2"), wi("wi"), wj("wj");
  Stmt s1 = block_realize({i, j}, Expr(),
                          block({.name = "T",
                                 .iter_vars = {test::spatial(vi, n), test::spatial(vj, m)},
                                 .body = buffer_store(T, buffer_load(A, {vi, vj}) * Expr(2.0f), {vi, vj})}));
  Stmt s2 = block_realize({i2, j2}, Expr(),
                          block({.name = "C",
                                 .iter_vars = {test::spatial(wi, n), test::spatial(wj, m)},
                                 .body = buffer_store(C, buffer_load(T, {wi, wj}) + Expr(1.0f), {wi, wj})}));
  PrimFunc f("two_stage", {A, C}, test::root(seq({loop(i, n, loop(j, m, s1)), loop(i2, n, loop(j2, m, s2))}), {T}));
  auto a = test::ramp_data(n * m, 3);
  std::vector<float> c(n * m);
  interpret(f, {host(a, kF32, {n, m}), host(c, kF32, {n, m})});
  for (int x = 0; x < n * m; ++x) EXPECT_EQ(c[x], a[x] * 2.0f + 1.0f);
}

// A loop of 10 split by 4: the last tile is guarded by the block predicate.
TEST(InterpBlock, PredicateSkipsTheTailOfASplit) {
  Buffer A("A", kF32, {Expr(10)}), B("B", kF32, {Expr(10)});
  Var io("io"), ii("ii"), vi("vi");
  Expr bind = io * 4 + ii;
  auto make = [&](Expr predicate) {
    Stmt blk = block({.name = "B", .iter_vars = {test::spatial(vi, 10)},
                      .body = buffer_store(B, buffer_load(A, {vi}) + Expr(1.0f), {vi})});
    return PrimFunc("split", {A, B}, test::root(loop(io, 3, loop(ii, 4, block_realize({bind}, predicate, blk)))));
  };
  auto a = test::ramp_data(10, 4);
  std::vector<float> b(10, 0.0f);
  interpret(make(bind < Expr(10)), {host(a, kF32, {10}), host(b, kF32, {10})});
  for (int x = 0; x < 10; ++x) EXPECT_EQ(b[x], a[x] + 1.0f);
  // Without the predicate, the iter var leaves its domain: reported, not run.
  try {
    interpret(make(Expr()), {host(a, kF32, {10}), host(b, kF32, {10})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("iter var vi is bound to 10, outside its domain [0, 10)"), std::string::npos)
        << e.what();
  }
}

// Iter var domains that start above zero: the init runs when the reduce iter
// var is at its domain's minimum (3), not at zero.
TEST(InterpBlock, NonZeroDomainMinimum) {
  Buffer A("A", kF32, {Expr(8), Expr(8)}), B("B", kF32, {Expr(8)});
  Var i("i"), k("k"), vi("vi"), vk("vk");
  Stmt blk = block({.name = "B",
                    .iter_vars = {IterVar(vi, Range(Expr(2), Expr(6)), IterType::kSpatial),
                                  IterVar(vk, Range(Expr(3), Expr(4)), IterType::kReduce)},
                    .init = buffer_store(B, Expr(0.0f), {vi}),
                    .body = buffer_store(B, buffer_load(B, {vi}) + buffer_load(A, {vi, vk}), {vi})});
  PrimFunc f("partial_sum", {A, B},
             test::root(loop(i, 6, loop(k, 4, block_realize({i + 2, k + 3}, Expr(), blk)))));
  auto a = test::ramp_data(64, 5);
  std::vector<float> b(8, -7.0f);
  interpret(f, {host(a, kF32, {8, 8}), host(b, kF32, {8})});
  EXPECT_EQ(b[0], -7.0f);
  EXPECT_EQ(b[1], -7.0f);
  for (int r = 2; r < 8; ++r) {
    float acc = 0.0f;
    for (int c = 3; c < 7; ++c) acc = acc + a[r * 8 + c];
    EXPECT_EQ(b[r], acc) << "row " << r;
  }
}

// A nested block reads the outer block's iter var through its own binding,
// and a symbolic extent n is bound from the argument's shape.
TEST(InterpBlock, NestedBlocksAndSymbolicShape) {
  Var n("n");
  Buffer A("A", kF32, {n, Expr(4)}), B("B", kF32, {n});
  Var i("i"), j("j"), vi("vi"), wi("wi"), wj("wj");
  Stmt inner = block_realize(
      {vi, j}, Expr(),
      block({.name = "inner",
             .iter_vars = {IterVar(wi, Range::from_extent(n), IterType::kSpatial), test::reduce_axis(wj, 4)},
             .init = buffer_store(B, Expr(0.0f), {wi}),
             .body = buffer_store(B, max(buffer_load(B, {wi}), buffer_load(A, {wi, wj})), {wi})}));
  Stmt outer = block_realize(
      {i}, Expr(),
      block({.name = "outer", .iter_vars = {IterVar(vi, Range::from_extent(n), IterType::kSpatial)}, .body = loop(j, 4, inner)}));
  PrimFunc f("row_max", {A, B}, test::root(for_loop(i, Expr(0), n, ForKind::kSerial, outer)));
  Interpreter interp(f);
  for (int rows : {3, 5}) {
    auto a = test::ramp_data(rows * 4, rows);
    std::vector<float> b(rows, 9.0f);
    interp.run({host(a, kF32, {rows, 4}), host(b, kF32, {rows})});
    for (int r = 0; r < rows; ++r) {
      float want = 0.0f;
      for (int c = 0; c < 4; ++c) want = std::max(want, a[r * 4 + c]);
      EXPECT_EQ(b[r], want) << rows << " rows, row " << r;
    }
  }
}

// Thread-bound loops iterate their extent; IfThenElse, LetStmt and Let work
// inside blocks.
TEST(InterpBlock, ThreadLoopsBranchesAndLets) {
  Buffer A("A", kF32, {Expr(8)}), B("B", kF32, {Expr(8)});
  Var bx("bx"), tx("tx"), vi("vi"), t("t", kF32), u("u", kF32);
  Expr x = buffer_load(A, {vi});
  Stmt body = let_stmt(t, x * Expr(3.0f),
                       if_then_else(vi < Expr(4), buffer_store(B, let(u, t + Expr(1.0f), u * u), {vi}),
                                    buffer_store(B, t, {vi})));
  Stmt blk = block_realize({bx * 4 + tx}, Expr(), block({.name = "B", .iter_vars = {test::spatial(vi, 8)}, .body = body}));
  PrimFunc f("gpu_like", {A, B},
             test::root(loop(bx, 2, loop(tx, 4, blk, ForKind::kThreadBinding, "threadIdx.x"), ForKind::kThreadBinding, "blockIdx.x")));
  auto a = test::ramp_data(8, 6);
  std::vector<float> b(8);
  interpret(f, {host(a, kF32, {8}), host(b, kF32, {8})});
  for (int r = 0; r < 8; ++r) {
    float tv = a[r] * 3.0f;
    float want = r < 4 ? (tv + 1.0f) * (tv + 1.0f) : tv;
    EXPECT_EQ(b[r], want) << r;
  }
}

}  // namespace
}  // namespace kiln
