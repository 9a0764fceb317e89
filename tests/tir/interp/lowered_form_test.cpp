// The interpreter on lowered programs: flat buffers, Allocate, vectors.
#include <gtest/gtest.h>

#include <cmath>

#include "test_programs.h"

namespace kiln {
namespace {

using test::host;
using test::kF32;
using test::kI32;
using test::loop;

Expr ramp8(Expr base, int stride = 1) { return ramp(std::move(base), Expr(stride), 8); }

// B[i*8 : i*8+8] = relu(A[...] * 2 + 1), vectorised by hand, through a
// local Allocate; then a gather C[j] = A[idx[j]] and a scatter D[idx[j]] = j.
TEST(InterpLowered, RampBroadcastGatherScatter) {
  Buffer A("A", kF32, {Expr(16)}), B("B", kF32, {Expr(16)}), idx("idx", kI32, {Expr(8)}), C("C", kF32, {Expr(8)}),
      D("D", kI32, {Expr(16)}), T("T", kF32, {Expr(8)}, "local");
  Var i("i"), v("v", DataType::Float(32, 8));
  Expr a = buffer_load(A, {ramp8(i * 8)});
  Stmt stage = allocate(
      T, seq({buffer_store(T, a * broadcast(Expr(2.0f), 8) + broadcast(Expr(1.0f), 8), {ramp8(Expr(0))}),
              let_stmt(v, buffer_load(T, {ramp8(Expr(0))}),
                       buffer_store(B, select(v > broadcast(Expr(0.0f), 8), v, broadcast(Expr(0.0f), 8)), {ramp8(i * 8)}))}));
  Expr gathered = buffer_load(A, {buffer_load(idx, {ramp8(Expr(0))})});
  Stmt body = seq({loop(i, 2, stage, ForKind::kParallel), buffer_store(C, gathered, {ramp8(Expr(0))}),
                   buffer_store(D, ramp8(Expr(0)), {buffer_load(idx, {ramp8(Expr(0))})})});
  PrimFunc f("vec", {A, idx, B, C, D}, body);

  auto av = test::ramp_data(16, 7);
  std::vector<int32_t> iv = {15, 0, 3, 3, 9, 12, 1, 7};
  std::vector<float> bv(16), cv(8);
  std::vector<int32_t> dv(16, -1);
  interpret(f, {host(av, kF32, {16}), host(iv, kI32, {8}), host(bv, kF32, {16}), host(cv, kF32, {8}), host(dv, kI32, {16})});
  for (int x = 0; x < 16; ++x) EXPECT_EQ(bv[x], std::max(av[x] * 2.0f + 1.0f, 0.0f)) << x;
  for (int x = 0; x < 8; ++x) EXPECT_EQ(cv[x], av[iv[x]]) << x;
  std::vector<int32_t> want(16, -1);
  for (int x = 0; x < 8; ++x) want[iv[x]] = x;  // later lanes win on repeated indices
  EXPECT_EQ(dv, want);
}

// A strided Ramp reads every other element; vector integer arithmetic and
// comparisons work lane by lane, and vector Select picks per lane.
TEST(InterpLowered, StridedRampAndLaneWiseIntegerOps) {
  Buffer A("A", kI32, {Expr(16)}), B("B", kI32, {Expr(8)});
  Expr a = buffer_load(A, {ramp8(Expr(1), 2)});
  Expr lane = ramp8(Expr(0));
  Expr r = select(eq(floormod(a, broadcast(Expr(3), 8)), broadcast(Expr(0), 8)), lane, a - lane * broadcast(Expr(2), 8));
  PrimFunc f("strided", {A, B}, buffer_store(B, r, {ramp8(Expr(0))}));
  std::vector<int32_t> av(16), bv(8);
  for (int x = 0; x < 16; ++x) av[x] = x * x - 20;
  interpret(f, {host(av, kI32, {16}), host(bv, kI32, {8})});
  for (int l = 0; l < 8; ++l) {
    int32_t e = av[1 + 2 * l];
    int32_t fm = ((e % 3) + 3) % 3;
    EXPECT_EQ(bv[l], fm == 0 ? l : e - l * 2) << l;
  }
}

// A scalar loop with a flat index, an unrolled loop and an int64 index.
TEST(InterpLowered, FlatIndicesAndLoopKinds) {
  Buffer A("A", kF32, {Expr(12)}), B("B", kF32, {Expr(12)});
  Var i("i"), j("j", DataType::Int64());
  Stmt body = loop(i, 3, for_loop(j, Expr(int64_t{0}), Expr(int64_t{4}), ForKind::kUnrolled,
                                  buffer_store(B, buffer_load(A, {cast(DataType::Int64(), i) * Expr(int64_t{4}) + j}) - Expr(1.0f),
                                               {cast(DataType::Int64(), i * 4) + j})));
  auto av = test::ramp_data(12, 8);
  std::vector<float> bv(12);
  interpret(PrimFunc("flat", {A, B}, body), {host(av, kF32, {12}), host(bv, kF32, {12})});
  for (int x = 0; x < 12; ++x) EXPECT_EQ(bv[x], av[x] - 1.0f);
}

// Vector casts, intrinsics, comparisons stored as bool bytes, and an integer
// abs that wraps at the type's minimum.
TEST(InterpLowered, VectorCastsCallsAndBools) {
  const DataType i8 = DataType::Int(8), b1 = DataType::Bool();
  Buffer A("A", kF32, {Expr(8)}), E("E", kF32, {Expr(8)}), I("I", kI32, {Expr(8)}), M("M", b1, {Expr(8)}),
      S("S", i8, {Expr(8)}), Q("Q", i8, {Expr(8)});
  Var v("v", DataType::Float(32, 8));
  Expr a = buffer_load(A, {ramp8(Expr(0))});
  Stmt body = let_stmt(
      v, a * broadcast(Expr(4.0f), 8),
      seq({buffer_store(E, call(Intrinsic::exp, {a}), {ramp8(Expr(0))}),
           buffer_store(I, cast(DataType::Int(32, 8), v), {ramp8(Expr(0))}),
           buffer_store(M, v > broadcast(Expr(1.0f), 8), {ramp8(Expr(0))}),
           buffer_store(Q, call(Intrinsic::abs, {buffer_load(S, {ramp8(Expr(0))})}), {ramp8(Expr(0))})}));
  auto av = test::ramp_data(8, 9);
  std::vector<float> ev(8);
  std::vector<int32_t> iv(8);
  std::vector<uint8_t> mv(8, 7);
  std::vector<int8_t> sv = {-128, -127, -1, 0, 1, 5, 127, -5}, qv(8);
  interpret(PrimFunc("vec_misc", {A, E, I, M, S, Q}, body),
            {host(av, kF32, {8}), host(ev, kF32, {8}), host(iv, kI32, {8}), host(mv, b1, {8}), host(sv, i8, {8}),
             host(qv, i8, {8})});
  for (int l = 0; l < 8; ++l) {
    const float x4 = av[l] * 4.0f;
    EXPECT_EQ(ev[l], static_cast<float>(std::exp(static_cast<double>(av[l])))) << l;
    EXPECT_EQ(iv[l], static_cast<int32_t>(x4)) << l;
    EXPECT_EQ(mv[l], x4 > 1.0f ? 1 : 0) << l;
  }
  EXPECT_EQ(qv, (std::vector<int8_t>{-128, 127, 1, 0, 1, 5, 127, 5}));
}

}  // namespace
}  // namespace kiln
