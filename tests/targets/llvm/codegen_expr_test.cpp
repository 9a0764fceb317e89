// Expressions through the JIT, each checked against plain C++: arithmetic,
// vectors (Ramp/Broadcast loads and stores, gathers, scatters), integer
// wraparound, floor division of negatives, selects, casts and lets.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "tests/targets/llvm/kernel_util.h"

namespace kiln {
namespace {

using namespace kiln::test;

TEST(CodegenExpr, Elementwise) {
  const int n = 1000;
  Buffer A = flat("A", DataType::Float32(), n), B = flat("B", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Var i("i");
  PrimFunc f("axpb", {A, B, C}, loop(i, n, st(C, ld(A, i) + ld(B, i) * f32(2.0f), i)));
  NDArray a = random_array(DataType::Float32(), n, 1), b = random_array(DataType::Float32(), n, 2);
  NDArray c(DataType::Float32(), {n});
  run(f, {&a, &b, &c});
  for (int k = 0; k < n; ++k) ASSERT_EQ(c.data_as<float>()[k], a.data_as<float>()[k] + b.data_as<float>()[k] * 2.0f);
}

TEST(CodegenExpr, SerialReductionKeepsItsOrder) {
  const int n = 777;
  Buffer A = flat("A", DataType::Float32(), n), S = flat("S", DataType::Float32(), 1);
  Buffer M = flat("M", DataType::Int32(), 1), I = flat("I", DataType::Int32(), n);
  Var i("i");
  Stmt body = seq({st(S, f32(0.0f), Expr(0)), st(M, min_value(DataType::Int32()), Expr(0)),
                   loop(i, n, seq({st(S, ld(S, Expr(0)) + ld(A, i), Expr(0)),
                                   st(M, max(ld(M, Expr(0)), ld(I, i)), Expr(0))}))});
  PrimFunc f("reduce", {A, I, S, M}, body);
  NDArray a = random_array(DataType::Float32(), n, 3, -10, 10);
  NDArray ints = random_array(DataType::Int32(), n, 4, -100000, 100000);
  NDArray s(DataType::Float32(), {1}), m(DataType::Int32(), {1});
  run(f, {&a, &ints, &s, &m});
  float expect = 0;  // no fast-math: the generated sum must not be reassociated
  for (int k = 0; k < n; ++k) expect += a.data_as<float>()[k];
  EXPECT_EQ(s.data_as<float>()[0], expect);
  EXPECT_EQ(m.data_as<int32_t>()[0], *std::max_element(ints.data_as<int32_t>(), ints.data_as<int32_t>() + n));
}

TEST(CodegenExpr, RampAndBroadcastVectors) {
  const int n = 256, lanes = 16;
  Buffer A = flat("A", DataType::Float32(), n), B = flat("B", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Buffer D = flat("D", DataType::Float32(), n);
  Var io("io");
  Expr idx = vec(io * lanes, lanes);
  Stmt body = seq({
      st(C, ld(A, idx) * broadcast(f32(3.0f), lanes) + ld(B, idx), idx),
      // A broadcast index reads one element into every lane.
      st(D, ld(A, broadcast(io, lanes)) + cast(DataType::Float(32, lanes), ramp(Expr(0), Expr(1), lanes)), idx),
  });
  PrimFunc f("vec", {A, B, C, D}, loop(io, n / lanes, body));
  NDArray a = random_array(DataType::Float32(), n, 5), b = random_array(DataType::Float32(), n, 6);
  NDArray c(DataType::Float32(), {n}), d(DataType::Float32(), {n});
  run(f, {&a, &b, &c, &d});
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(c.data_as<float>()[k], a.data_as<float>()[k] * 3.0f + b.data_as<float>()[k]) << k;
    ASSERT_EQ(d.data_as<float>()[k], a.data_as<float>()[k / lanes] + static_cast<float>(k % lanes)) << k;
  }
}

TEST(CodegenExpr, GatherAndScatter) {
  const int n = 64, lanes = 8;
  Buffer A = flat("A", DataType::Float32(), 2 * n), Idx = flat("Idx", DataType::Int32(), n);
  Buffer G = flat("G", DataType::Float32(), n), S = flat("S", DataType::Float32(), n);
  Buffer T = flat("T", DataType::Float32(), n);
  Var io("io");
  Expr idx = vec(io * lanes, lanes);
  Stmt body = seq({
      st(G, ld(A, ld(Idx, idx)), idx),                               // gather through loaded indices
      st(S, ld(A, idx), ld(Idx, idx)),                               // scatter
      st(T, ld(A, ramp(io * (2 * lanes), Expr(2), lanes)), idx),     // strided gather
  });
  PrimFunc f("gather", {A, Idx, G, S, T}, loop(io, n / lanes, body));
  NDArray a = random_array(DataType::Float32(), 2 * n, 7);
  NDArray idx_arr(DataType::Int32(), {n});
  std::vector<int32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::reverse(perm.begin() + 5, perm.end() - 3);
  std::swap(perm[0], perm[40]);
  std::copy(perm.begin(), perm.end(), idx_arr.data_as<int32_t>());
  NDArray g(DataType::Float32(), {n}), s(DataType::Float32(), {n}), t(DataType::Float32(), {n});
  run(f, {&a, &idx_arr, &g, &s, &t});
  const float* av = a.data_as<float>();
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(g.data_as<float>()[k], av[perm[k]]) << k;
    ASSERT_EQ(s.data_as<float>()[perm[k]], av[k]) << k;
    ASSERT_EQ(t.data_as<float>()[k], av[2 * k]) << k;
  }
}

// offset + clamp(Ramp), as a vectorized pad reads its input: a masked
// load whose clamped lanes repeat the edge elements, exactly as the gather
// it replaces. Each row of P is the row of A with one element more on each
// side; the lanes past A's ends (A[-1], A[R*W]) must never be read.
TEST(CodegenExpr, ClampedRampReadsLikeTheGather) {
  const int rows = 3, w = 21, lanes = 8, pw = 24;  // three vectors per padded row
  Buffer A = flat("A", DataType::Float32(), rows * w);
  Buffer P = flat("P", DataType::Float32(), rows * pw), L = flat("L", DataType::Float32(), rows * pw);
  Buffer H = flat("H", DataType::Float32(), rows * pw), D = flat("D", DataType::Float32(), rows * pw);
  Var r("r"), o("o");
  Expr x = ramp(o * lanes - 1, Expr(1), lanes), row = broadcast(r * w, lanes);
  Expr lo = broadcast(Expr(0), lanes), hi = broadcast(Expr(w - 1), lanes);
  Expr out = vec(r * pw + o * lanes, lanes);
  Stmt body = seq({
      st(P, ld(A, row + max(min(x, hi), lo)), out),
      st(L, ld(A, row + min(max(x, lo), hi)), out),
      st(H, ld(A, row + min(x + broadcast(Expr(1), lanes), hi)), out),  // no lower bound
      st(D, ld(A, row + min(max(x, broadcast(Expr(5), lanes)), broadcast(Expr(2), lanes))), out),  // lo > hi: all hi
  });
  PrimFunc f("clamped", {A, P, L, H, D}, loop(r, rows, loop(o, pw / lanes, body)));
  // Nothing to match H's index: the Add inside the clamp is no ramp; it
  // stays a gather and must agree all the same.
  NDArray a = random_array(DataType::Float32(), rows * w, 11);
  NDArray p(DataType::Float32(), {rows * pw}), l(DataType::Float32(), {rows * pw});
  NDArray h(DataType::Float32(), {rows * pw}), d(DataType::Float32(), {rows * pw});
  run(f, {&a, &p, &l, &h, &d});
  const float* av = a.data_as<float>();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < pw; ++j) {
      const int k = i * pw + j, at = std::clamp(j - 1, 0, w - 1);
      ASSERT_EQ(p.data_as<float>()[k], av[i * w + at]) << i << "," << j;
      ASSERT_EQ(l.data_as<float>()[k], av[i * w + at]) << i << "," << j;
      ASSERT_EQ(h.data_as<float>()[k], av[i * w + std::min(j, w - 1)]) << i << "," << j;
      ASSERT_EQ(d.data_as<float>()[k], av[i * w + 2]) << i << "," << j;
    }
}

// An index of a few distinct values, each a constant offset from one
// scalar (a grouped convolution's input channel for 16 output channels in
// groups of 8): scalar loads broadcast into their lanes, reading what the
// gather would. A floordiv of a ramp whose base is not constant stays a
// gather, and agrees too.
TEST(CodegenExpr, FewElementIndexReadsLikeTheGather) {
  const int n = 64, lanes = 16, groups = 8;
  Buffer A = flat("A", DataType::Float32(), n + lanes);
  Buffer G = flat("G", DataType::Float32(), n * groups), M = flat("M", DataType::Float32(), n * groups);
  Buffer V = flat("V", DataType::Float32(), n * groups);
  Var io("io"), j("j");
  auto bc = [&](Expr e) { return broadcast(std::move(e), lanes); };
  const Expr lane = ramp(Expr(0), Expr(1), lanes);
  const Expr out = vec((io * groups + j) * lanes, lanes);
  Stmt body = seq({
      // lanes 0-7: A[io*16 + j], lanes 8-15: A[io*16 + 8 + j]
      st(G, ld(A, bc(io * lanes + j) + floordiv(lane, bc(Expr(8))) * bc(Expr(8))), out),
      // A[io*16 + j + 2 * (lane % 4)]: four values
      st(M, ld(A, bc(io * lanes + j) + floormod(lane, bc(Expr(4))) * bc(Expr(2))), out),
      // floordiv(io*16 + lane, 8): base not constant, a gather
      st(V, ld(A, floordiv(ramp(io * lanes, Expr(1), lanes), bc(Expr(8))) + bc(j)), out),
  });
  PrimFunc f("few", {A, G, M, V}, loop(io, n / lanes, loop(j, groups, body)));
  NDArray a = random_array(DataType::Float32(), n + lanes, 12);
  NDArray g(DataType::Float32(), {n * groups}), m(DataType::Float32(), {n * groups}), v(DataType::Float32(), {n * groups});
  run(f, {&a, &g, &m, &v});
  const float* av = a.data_as<float>();
  for (int o = 0; o < n / lanes; ++o)
    for (int jj = 0; jj < groups; ++jj)
      for (int l = 0; l < lanes; ++l) {
        const int k = (o * groups + jj) * lanes + l;
        ASSERT_EQ(g.data_as<float>()[k], av[o * lanes + jj + l / 8 * 8]) << o << "," << jj << "," << l;
        ASSERT_EQ(m.data_as<float>()[k], av[o * lanes + jj + l % 4 * 2]) << o << "," << jj << "," << l;
        ASSERT_EQ(v.data_as<float>()[k], av[(o * lanes + l) / 8 + jj]) << o << "," << jj << "," << l;
      }
}

// An index whose lanes read a few contiguous runs (four rows of a byte
// matrix interleaved, lane l from row l % 4 at column l / 4: an int8 dot
// product's operand packed): a vector load per row and shuffles, no gather,
// reading what the gather would.
TEST(CodegenExpr, ContiguousRunsIndexReadsLikeTheGather) {
  const int cols = 64, rows = 8, lanes = 64;
  Buffer B = flat("B", DataType::Int(8), rows * cols), P = flat("P", DataType::Int(8), rows * cols);
  Var r("r"), c("c");
  auto bc = [&](Expr e) { return broadcast(std::move(e), lanes); };
  const Expr lane = ramp(Expr(0), Expr(1), lanes);
  // P[(r * 4 + c) * 64 + l] = B[(r * 4 + l % 4) * 64 + c * 16 + l / 4]
  const Expr src = (bc(r * 4) + floormod(lane, bc(Expr(4)))) * bc(Expr(cols)) + bc(c * 16) +
                   floordiv(lane, bc(Expr(4)));
  PrimFunc f("interleave", {B, P},
             loop(r, rows / 4, loop(c, cols / 16, st(P, ld(B, src), vec((r * 4 + c) * lanes, lanes)))));
  const std::string ir = emit_llvm_ir(f, host());
  EXPECT_EQ(ir.find("gather"), std::string::npos) << ir;
  NDArray b = random_array(DataType::Int(8), rows * cols, 5, -128, 127);
  NDArray p(DataType::Int(8), {rows * cols});
  run(f, {&b, &p});
  const auto* bv = static_cast<const int8_t*>(b.data());
  const auto* pv = static_cast<const int8_t*>(p.data());
  for (int rr = 0; rr < rows / 4; ++rr)
    for (int cc = 0; cc < cols / 16; ++cc)
      for (int l = 0; l < lanes; ++l)
        ASSERT_EQ(pv[(rr * 4 + cc) * lanes + l], bv[(rr * 4 + l % 4) * cols + cc * 16 + l / 4]) << rr << "," << cc;
}

TEST(CodegenExpr, VectorLoopWithScalarTail) {
  const int n = 37, lanes = 8, main = n / lanes * lanes;
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n + 3);
  Var io("io"), t("t");
  Stmt body = seq({
      loop(io, n / lanes, st(C, ld(A, vec(io * lanes, lanes)) + f32(1.0f), vec(io * lanes, lanes))),
      loop(t, n - main, st(C, ld(A, t + main) + f32(1.0f), t + main)),
  });
  PrimFunc f("tail", {A, C}, body);
  NDArray a = random_array(DataType::Float32(), n, 8);
  NDArray c(DataType::Float32(), {n + 3});
  for (int k = n; k < n + 3; ++k) c.data_as<float>()[k] = -7.0f;  // must stay untouched
  run(f, {&a, &c});
  for (int k = 0; k < n; ++k) ASSERT_EQ(c.data_as<float>()[k], a.data_as<float>()[k] + 1.0f) << k;
  for (int k = n; k < n + 3; ++k) EXPECT_EQ(c.data_as<float>()[k], -7.0f);
}

TEST(CodegenExpr, NarrowIntegersWrapAround) {
  const int n = 64;
  Buffer A = flat("A", DataType::Int(8), n), B = flat("B", DataType::Int(8), n);
  Buffer Add = flat("Add", DataType::Int(8), n), Mul = flat("Mul", DataType::Int(8), n);
  Buffer VAdd = flat("VAdd", DataType::Int(8), n), U = flat("U", DataType::UInt(8), n);
  Var i("i"), io("io");
  Stmt body = seq({
      loop(i, n, seq({st(Add, ld(A, i) + ld(B, i), i), st(Mul, ld(A, i) * ld(B, i), i),
                      st(U, cast(DataType::UInt(8), ld(A, i)) - cast(DataType::UInt(8), ld(B, i)), i)})),
      loop(io, n / 16, st(VAdd, ld(A, vec(io * 16, 16)) + ld(B, vec(io * 16, 16)), vec(io * 16, 16))),
  });
  PrimFunc f("wrap", {A, B, Add, Mul, VAdd, U}, body);
  NDArray a = random_array(DataType::Int(8), n, 9, -128, 127), b = random_array(DataType::Int(8), n, 10, -128, 127);
  a.data_as<int8_t>()[0] = 100;
  b.data_as<int8_t>()[0] = 100;  // 200 wraps to -56
  NDArray add(DataType::Int(8), {n}), mul(DataType::Int(8), {n}), vadd(DataType::Int(8), {n}), u(DataType::UInt(8), {n});
  run(f, {&a, &b, &add, &mul, &vadd, &u});
  EXPECT_EQ(add.data_as<int8_t>()[0], -56);
  for (int k = 0; k < n; ++k) {
    int8_t x = a.data_as<int8_t>()[k], y = b.data_as<int8_t>()[k];
    ASSERT_EQ(add.data_as<int8_t>()[k], static_cast<int8_t>(x + y)) << k;
    ASSERT_EQ(mul.data_as<int8_t>()[k], static_cast<int8_t>(x * y)) << k;
    ASSERT_EQ(vadd.data_as<int8_t>()[k], static_cast<int8_t>(x + y)) << k;
    ASSERT_EQ(u.data_as<uint8_t>()[k], static_cast<uint8_t>(static_cast<uint8_t>(x) - static_cast<uint8_t>(y))) << k;
  }
}

int32_t ref_floordiv(int32_t a, int32_t b) {
  int32_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int32_t ref_floormod(int32_t a, int32_t b) { return a - ref_floordiv(a, b) * b; }

TEST(CodegenExpr, FloorDivAndModOfNegatives) {
  const int n = 256;
  Buffer A = flat("A", DataType::Int32(), n), B = flat("B", DataType::Int32(), n);
  std::vector<int> divisors = {0 /* B[i] */, 4, 3, -3, 1, -4};
  std::vector<Buffer> outs;
  std::vector<Buffer> params = {A, B};
  Var i("i");
  std::vector<Stmt> stmts;
  for (size_t d = 0; d < divisors.size(); ++d) {
    std::string suffix = std::to_string(d);
    Buffer q = flat(std::string("Q").append(suffix), DataType::Int32(), n);
    Buffer r = flat(std::string("R").append(suffix), DataType::Int32(), n);
    Expr div = divisors[d] == 0 ? ld(B, i) : Expr(divisors[d]);
    stmts.push_back(st(q, floordiv(ld(A, i), div), i));
    stmts.push_back(st(r, floormod(ld(A, i), div), i));
    params.push_back(q);
    params.push_back(r);
  }
  // The same as 8-lane vectors, with broadcast constant divisors.
  Buffer VQ = flat("VQ", DataType::Int32(), n), VR = flat("VR", DataType::Int32(), n);
  Buffer VQ3 = flat("VQ3", DataType::Int32(), n), VR3 = flat("VR3", DataType::Int32(), n);
  params.insert(params.end(), {VQ, VR, VQ3, VR3});
  Var io("io");
  Expr vi = vec(io * 8, 8);
  Stmt vloop = loop(io, n / 8, seq({st(VQ, floordiv(ld(A, vi), ld(B, vi)), vi), st(VR, floormod(ld(A, vi), broadcast(Expr(4), 8)), vi),
                                    st(VQ3, floordiv(ld(A, vi), broadcast(Expr(3), 8)), vi),
                                    st(VR3, floormod(ld(A, vi), ld(B, vi)), vi)}));
  PrimFunc f("floordiv", params, seq({loop(i, n, seq(stmts)), vloop}));

  std::vector<NDArray> arrays;
  arrays.push_back(random_array(DataType::Int32(), n, 11, -50, 50));
  NDArray b = random_array(DataType::Int32(), n, 12, -7, 7);
  for (int k = 0; k < n; ++k)
    if (b.data_as<int32_t>()[k] == 0) b.data_as<int32_t>()[k] = (k % 2) ? 5 : -5;
  arrays.push_back(std::move(b));
  for (size_t k = 2; k < params.size(); ++k) arrays.emplace_back(DataType::Int32(), std::vector<int64_t>{n});
  std::vector<NDArray*> ptrs;
  for (NDArray& x : arrays) ptrs.push_back(&x);
  run(f, ptrs);

  const int32_t* av = arrays[0].data_as<int32_t>();
  const int32_t* bv = arrays[1].data_as<int32_t>();
  for (size_t d = 0; d < divisors.size(); ++d) {
    for (int k = 0; k < n; ++k) {
      int32_t div = divisors[d] == 0 ? bv[k] : divisors[d];
      ASSERT_EQ(arrays[2 + 2 * d].data_as<int32_t>()[k], ref_floordiv(av[k], div)) << av[k] << " // " << div;
      ASSERT_EQ(arrays[3 + 2 * d].data_as<int32_t>()[k], ref_floormod(av[k], div)) << av[k] << " % " << div;
    }
  }
  const size_t v = 2 + 2 * divisors.size();
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(arrays[v].data_as<int32_t>()[k], ref_floordiv(av[k], bv[k])) << k;
    ASSERT_EQ(arrays[v + 1].data_as<int32_t>()[k], ref_floormod(av[k], 4)) << k;
    ASSERT_EQ(arrays[v + 2].data_as<int32_t>()[k], ref_floordiv(av[k], 3)) << k;
    ASSERT_EQ(arrays[v + 3].data_as<int32_t>()[k], ref_floormod(av[k], bv[k])) << k;
  }
  // The spot values that matter most.
  EXPECT_EQ(ref_floordiv(-1, 4), -1);
  EXPECT_EQ(ref_floormod(-1, 4), 3);
}

TEST(CodegenExpr, TruncatingDivisionAndFloatFloorDiv) {
  const int n = 64;
  Buffer A = flat("A", DataType::Int32(), n), B = flat("B", DataType::Int32(), n);
  Buffer D = flat("D", DataType::Int32(), n), M = flat("M", DataType::Int32(), n);
  Buffer X = flat("X", DataType::Float32(), n), FQ = flat("FQ", DataType::Float32(), n), FR = flat("FR", DataType::Float32(), n);
  Var i("i");
  PrimFunc f("tdiv", {A, B, D, M, X, FQ, FR},
             loop(i, n, seq({st(D, ld(A, i) / ld(B, i), i), st(M, ld(A, i) % ld(B, i), i),
                             st(FQ, floordiv(ld(X, i), f32(0.75f)), i), st(FR, floormod(ld(X, i), f32(0.75f)), i)})));
  NDArray a = random_array(DataType::Int32(), n, 13, -50, 50), b = random_array(DataType::Int32(), n, 14, 1, 9);
  for (int k = 0; k < n; k += 2) b.data_as<int32_t>()[k] *= -1;
  NDArray x = random_array(DataType::Float32(), n, 15, -5, 5);
  NDArray d(DataType::Int32(), {n}), m(DataType::Int32(), {n}), fq(DataType::Float32(), {n}), fr(DataType::Float32(), {n});
  run(f, {&a, &b, &d, &m, &x, &fq, &fr});
  for (int k = 0; k < n; ++k) {
    int32_t av = a.data_as<int32_t>()[k], bv = b.data_as<int32_t>()[k];
    ASSERT_EQ(d.data_as<int32_t>()[k], av / bv);
    ASSERT_EQ(m.data_as<int32_t>()[k], av % bv);
    float xv = x.data_as<float>()[k];
    float q = std::floor(xv / 0.75f);
    ASSERT_EQ(fq.data_as<float>()[k], q);
    ASSERT_EQ(fr.data_as<float>()[k], xv - q * 0.75f);
  }
}

TEST(CodegenExpr, SelectMinMaxAndLogic) {
  const int n = 128;
  Buffer A = flat("A", DataType::Float32(), n), B = flat("B", DataType::Float32(), n);
  Buffer S = flat("S", DataType::Float32(), n), VS = flat("VS", DataType::Float32(), n);
  Buffer Mn = flat("Mn", DataType::Float32(), n), Mx = flat("Mx", DataType::Float32(), n);
  Buffer L = flat("L", DataType::Bool(), n);
  Var i("i"), io("io");
  Expr vi = vec(io * 8, 8);
  Expr va = ld(A, vi);
  Stmt body = seq({
      loop(i, n, seq({st(S, select(ld(A, i) > f32(0.0f), ld(A, i), ld(A, i) * f32(0.1f)), i),
                      st(Mn, min(ld(A, i), ld(B, i)), i), st(Mx, max(ld(A, i), ld(B, i)), i),
                      st(L, (ld(A, i) > ld(B, i) && !(ld(A, i) < f32(-0.5f))) || ld(B, i) >= f32(0.9f), i)})),
      loop(io, n / 8, st(VS, select(va > broadcast(f32(0.0f), 8), va, va * broadcast(f32(0.1f), 8)), vi)),
  });
  PrimFunc f("select", {A, B, S, VS, Mn, Mx, L}, body);
  NDArray a = random_array(DataType::Float32(), n, 16), b = random_array(DataType::Float32(), n, 17);
  NDArray s(DataType::Float32(), {n}), vs(DataType::Float32(), {n}), mn(DataType::Float32(), {n}), mx(DataType::Float32(), {n});
  NDArray l(DataType::Bool(), {n});
  run(f, {&a, &b, &s, &vs, &mn, &mx, &l});
  for (int k = 0; k < n; ++k) {
    float x = a.data_as<float>()[k], y = b.data_as<float>()[k];
    float expect = x > 0 ? x : x * 0.1f;
    ASSERT_EQ(s.data_as<float>()[k], expect);
    ASSERT_EQ(vs.data_as<float>()[k], expect);
    ASSERT_EQ(mn.data_as<float>()[k], std::min(x, y));
    ASSERT_EQ(mx.data_as<float>()[k], std::max(x, y));
    ASSERT_EQ(l.data_as<uint8_t>()[k], static_cast<uint8_t>((x > y && !(x < -0.5f)) || y >= 0.9f)) << k;
  }
}

TEST(CodegenExpr, Casts) {
  const int n = 64;
  Buffer X = flat("X", DataType::Float32(), n), I8 = flat("I8", DataType::Int(8), n), U8 = flat("U8", DataType::UInt(8), n);
  Buffer ToInt = flat("ToInt", DataType::Int32(), n), Wide = flat("Wide", DataType::Int32(), n);
  Buffer WideU = flat("WideU", DataType::Int32(), n), Narrow = flat("Narrow", DataType::Int(8), n);
  Buffer D = flat("D", DataType::Float(64), n), Back = flat("Back", DataType::Float32(), n);
  Buffer FromBool = flat("FromBool", DataType::Float32(), n), ToBool = flat("ToBool", DataType::Bool(), n);
  Var i("i");
  Stmt body = seq({
      st(ToInt, cast(DataType::Int32(), ld(X, i)), i),
      st(Wide, cast(DataType::Int32(), ld(I8, i)), i),
      st(WideU, cast(DataType::Int32(), ld(U8, i)), i),
      st(Narrow, cast(DataType::Int(8), cast(DataType::Int32(), ld(X, i)) * Expr(37)), i),
      st(D, cast(DataType::Float(64), ld(X, i)) * make_const(DataType::Float(64), 1.0 / 3.0), i),
      st(Back, cast(DataType::Float32(), ld(D, i)), i),
      st(FromBool, cast(DataType::Float32(), ld(X, i) > f32(0.0f)), i),
      st(ToBool, cast(DataType::Bool(), ld(I8, i)), i),
  });
  PrimFunc f("casts", {X, I8, U8, ToInt, Wide, WideU, Narrow, D, Back, FromBool, ToBool}, loop(i, n, body));
  NDArray x = random_array(DataType::Float32(), n, 18, -300, 300);
  NDArray i8 = random_array(DataType::Int(8), n, 19, -128, 127), u8 = random_array(DataType::UInt(8), n, 20, 0, 255);
  i8.data_as<int8_t>()[3] = 0;
  std::vector<NDArray> outs;
  for (DataType t : {DataType::Int32(), DataType::Int32(), DataType::Int32(), DataType::Int(8), DataType::Float(64),
                     DataType::Float32(), DataType::Float32(), DataType::Bool()})
    outs.emplace_back(t, std::vector<int64_t>{n});
  run(f, {&x, &i8, &u8, &outs[0], &outs[1], &outs[2], &outs[3], &outs[4], &outs[5], &outs[6], &outs[7]});
  for (int k = 0; k < n; ++k) {
    float xv = x.data_as<float>()[k];
    ASSERT_EQ(outs[0].data_as<int32_t>()[k], static_cast<int32_t>(xv));
    ASSERT_EQ(outs[1].data_as<int32_t>()[k], i8.data_as<int8_t>()[k]);
    ASSERT_EQ(outs[2].data_as<int32_t>()[k], u8.data_as<uint8_t>()[k]);
    ASSERT_EQ(outs[3].data_as<int8_t>()[k], static_cast<int8_t>(static_cast<int32_t>(xv) * 37));
    double dv = static_cast<double>(xv) * (1.0 / 3.0);
    ASSERT_EQ(outs[4].data_as<double>()[k], dv);
    ASSERT_EQ(outs[5].data_as<float>()[k], static_cast<float>(dv));
    ASSERT_EQ(outs[6].data_as<float>()[k], xv > 0 ? 1.0f : 0.0f);
    ASSERT_EQ(outs[7].data_as<uint8_t>()[k], i8.data_as<int8_t>()[k] != 0 ? 1 : 0);
  }
}

TEST(CodegenExpr, LetsAndConditionals) {
  const int n = 50;
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n), P = flat("P", DataType::Int32(), n);
  Var i("i"), t("t", DataType::Float32()), h("h");
  Stmt body = seq({
      st(C, let(t, ld(A, i) * f32(2.0f), t * t + t), i),
      let_stmt(h, floordiv(i, Expr(2)),
               if_then_else(eq(floormod(i, Expr(3)), Expr(0)), st(P, h, i), st(P, Expr(0) - h, i))),
  });
  PrimFunc f("lets", {A, C, P}, loop(i, n, body));
  NDArray a = random_array(DataType::Float32(), n, 21);
  NDArray c(DataType::Float32(), {n}), p(DataType::Int32(), {n});
  run(f, {&a, &c, &p});
  for (int k = 0; k < n; ++k) {
    float tv = a.data_as<float>()[k] * 2.0f;
    ASSERT_EQ(c.data_as<float>()[k], tv * tv + tv);
    ASSERT_EQ(p.data_as<int32_t>()[k], k % 3 == 0 ? k / 2 : -(k / 2));
  }
}

}  // namespace
}  // namespace kiln
