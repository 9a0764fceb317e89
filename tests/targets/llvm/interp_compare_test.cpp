// One kernel using most of the lowered IR, run by the JIT and by the
// reference interpreter (tir/interp), which must agree.
#include <cmath>

#include "tests/targets/llvm/kernel_util.h"
#include "tir/interp/interpreter.h"

namespace kiln {
namespace {

using namespace kiln::test;

TEST(InterpCompare, MixedKernelMatchesTheInterpreter) {
  const int rows = 6, cols = 32, n = rows * cols, lanes = 8;
  Buffer A = flat("A", DataType::Float32(), n), Q = flat("Q", DataType::Int32(), n), B8 = flat("B8", DataType::Int(8), n);
  Buffer C = flat("C", DataType::Float32(), n), D = flat("D", DataType::Int32(), n), H = flat("H", DataType::Float(16), n);
  Buffer E = flat("E", DataType::Float32(), n), W = flat("W", DataType::Int(8), n);
  Buffer T = flat("T", DataType::Float32(), cols);
  Var r("r"), jo("jo"), j("j"), k("k");
  Expr base = r * cols + jo * lanes;
  Expr vi = vec(base, lanes);
  Expr va = ld(A, vi);
  Stmt row = allocate(
      T, seq({
             loop(jo, cols / lanes,
                  seq({st(T, select(va > broadcast(f32(0.0f), lanes), va * broadcast(f32(2.0f), lanes), va),
                          vec(jo * lanes, lanes)),
                       st(D, floordiv(ld(Q, vi), broadcast(Expr(3), lanes)) + floormod(ld(Q, vi), broadcast(Expr(-4), lanes)), vi),
                       st(H, cast(DataType::Float(16, lanes), va * va), vi)})),
             loop(j, cols, seq({st(C, ld(T, Expr(cols - 1) - j) + cast(DataType::Float32(), r), r * cols + j),
                                st(W, ld(B8, r * cols + j) * Expr(static_cast<int>(3)) + cast(DataType::Int(8), j), r * cols + j)})),
             loop(k, cols, st(E, call(Intrinsic::exp, {ld(A, r * cols + floormod(k * 7, Expr(cols)))}), r * cols + k),
                  ForKind::kUnrolled),
         }));
  PrimFunc f("mixed", {A, Q, B8, C, D, H, E, W}, loop(r, rows, row, ForKind::kParallel));

  NDArray a = random_array(DataType::Float32(), n, 70, -2, 2), q = random_array(DataType::Int32(), n, 71, -100, 100);
  NDArray b8 = random_array(DataType::Int(8), n, 72, -128, 127);
  auto fresh_outputs = [&] {
    std::vector<NDArray> o;
    for (DataType t : {DataType::Float32(), DataType::Int32(), DataType::Float(16), DataType::Float32(), DataType::Int(8)})
      o.emplace_back(t, std::vector<int64_t>{n});
    return o;
  };
  std::vector<NDArray> jit = fresh_outputs(), ref = fresh_outputs();
  run(f, {&a, &q, &b8, &jit[0], &jit[1], &jit[2], &jit[3], &jit[4]}, 2);
  interpret(f, {a.host_buffer(), q.host_buffer(), b8.host_buffer(), ref[0].host_buffer(), ref[1].host_buffer(),
                ref[2].host_buffer(), ref[3].host_buffer(), ref[4].host_buffer()});
  for (size_t o = 0; o < jit.size(); ++o) {
    SCOPED_TRACE("output " + std::to_string(o));
    for (int e = 0; e < n; ++e) {
      if (o == 3) {  // exp: libm in float vs the interpreter's double, rounded
        ASSERT_NEAR(jit[o].get(e), ref[o].get(e), 2e-7 * std::fabs(ref[o].get(e))) << e;
      } else {
        ASSERT_EQ(jit[o].get(e), ref[o].get(e)) << e;
      }
    }
  }
}

}  // namespace
}  // namespace kiln
