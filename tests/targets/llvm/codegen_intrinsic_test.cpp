// Intrinsics (scalar and vector, float32 and float64) and 16-bit float
// buffers through the JIT, against C++ references.
#include <cmath>

#include "targets/runtime/half.h"
#include "tests/targets/llvm/kernel_util.h"

namespace kiln {
namespace {

using namespace kiln::test;

struct IntrinsicCase {
  Intrinsic op;
  double lo, hi;  // input range
  double (*ref)(double, double, double);
};

const IntrinsicCase kCases[] = {
    {Intrinsic::exp, -5, 5, [](double x, double, double) { return std::exp(x); }},
    {Intrinsic::log, 0.01, 10, [](double x, double, double) { return std::log(x); }},
    {Intrinsic::sqrt, 0, 10, [](double x, double, double) { return std::sqrt(x); }},
    {Intrinsic::rsqrt, 0.01, 10, [](double x, double, double) { return 1 / std::sqrt(x); }},
    {Intrinsic::tanh, -4, 4, [](double x, double, double) { return std::tanh(x); }},
    {Intrinsic::sigmoid, -20, 20, [](double x, double, double) { return 1 / (1 + std::exp(-x)); }},
    {Intrinsic::erf, -3, 3, [](double x, double, double) { return std::erf(x); }},
    {Intrinsic::abs, -3, 3, [](double x, double, double) { return std::fabs(x); }},
    {Intrinsic::floor, -3, 3, [](double x, double, double) { return std::floor(x); }},
    {Intrinsic::ceil, -3, 3, [](double x, double, double) { return std::ceil(x); }},
    {Intrinsic::round, -3, 3, [](double x, double, double) { return std::nearbyint(x); }},
    {Intrinsic::sin, -3, 3, [](double x, double, double) { return std::sin(x); }},
    {Intrinsic::cos, -3, 3, [](double x, double, double) { return std::cos(x); }},
    {Intrinsic::tan, -1.2, 1.2, [](double x, double, double) { return std::tan(x); }},
    {Intrinsic::asin, -0.99, 0.99, [](double x, double, double) { return std::asin(x); }},
    {Intrinsic::acos, -0.99, 0.99, [](double x, double, double) { return std::acos(x); }},
    {Intrinsic::atan, -4, 4, [](double x, double, double) { return std::atan(x); }},
    {Intrinsic::sinh, -3, 3, [](double x, double, double) { return std::sinh(x); }},
    {Intrinsic::cosh, -3, 3, [](double x, double, double) { return std::cosh(x); }},
    {Intrinsic::asinh, -4, 4, [](double x, double, double) { return std::asinh(x); }},
    {Intrinsic::acosh, 1, 5, [](double x, double, double) { return std::acosh(x); }},
    {Intrinsic::atanh, -0.9, 0.9, [](double x, double, double) { return std::atanh(x); }},
    {Intrinsic::pow, 0.1, 3, [](double x, double y, double) { return std::pow(x, y); }},
    {Intrinsic::fma, -3, 3, [](double x, double y, double z) { return std::fma(x, y, z); }},
};

// out = op(x, y, z) for float type t, as a scalar loop and as an 8-lane vector loop.
void check_intrinsic(const IntrinsicCase& c, DataType t, double tolerance) {
  SCOPED_TRACE(std::string(intrinsic_name(c.op)) + " " + t.str());
  const int n = 64, lanes = 8;
  Buffer X = flat("X", t, n), Y = flat("Y", t, n), Z = flat("Z", t, n);
  Buffer S = flat("S", t, n), V = flat("V", t, n);
  auto args_at = [&](Expr idx) {
    std::vector<Expr> args = {ld(X, idx), ld(Y, idx), ld(Z, idx)};
    args.resize(static_cast<size_t>(intrinsic_arity(c.op)));
    return args;
  };
  Var i("i"), io("io");
  Stmt body = seq({loop(i, n, st(S, call(c.op, args_at(i)), i)),
                   loop(io, n / lanes, st(V, call(c.op, args_at(vec(io * lanes, lanes))), vec(io * lanes, lanes)))});
  PrimFunc f(std::string("intrin_") + intrinsic_name(c.op), {X, Y, Z, S, V}, body);
  NDArray x = random_array(t, n, 30, c.lo, c.hi), y = random_array(t, n, 31, 0.5, 2), z = random_array(t, n, 32);
  // Halves and whole numbers (ties for the rounding functions), inside the domain.
  for (int k = 0; k < 8; ++k) {
    const double v = (c.lo >= 0 ? 1.0 : -2.0) + 0.5 * k;
    if (v >= c.lo && v <= c.hi) x.set(k, v);
  }
  NDArray s(t, {n}), v(t, {n});
  run(f, {&x, &y, &z, &s, &v});
  for (int k = 0; k < n; ++k) {
    double expect = c.ref(x.get(k), y.get(k), z.get(k));
    double tol = tolerance * std::max(1.0, std::fabs(expect));
    ASSERT_NEAR(s.get(k), expect, tol) << "x=" << x.get(k);
    ASSERT_NEAR(v.get(k), expect, tol) << "x=" << x.get(k);
  }
}

TEST(CodegenIntrinsic, EachFloat32) {
  for (const IntrinsicCase& c : kCases) check_intrinsic(c, DataType::Float32(), 4e-6);
}

TEST(CodegenIntrinsic, EachFloat64) {
  for (const IntrinsicCase& c : kCases) check_intrinsic(c, DataType::Float(64), 1e-13);
}

TEST(CodegenIntrinsic, RoundTiesToEven) {
  const int n = 8;
  Buffer X = flat("X", DataType::Float32(), n), R = flat("R", DataType::Float32(), n);
  Var i("i");
  PrimFunc f("round_even", {X, R}, loop(i, n, st(R, call(Intrinsic::round, {ld(X, i)}), i)));
  NDArray x(DataType::Float32(), {n}), r(DataType::Float32(), {n});
  const float in[n] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f, 3.0f};
  const float out[n] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 2.0f, -3.0f, 3.0f};
  std::copy(in, in + n, x.data_as<float>());
  run(f, {&x, &r});
  for (int k = 0; k < n; ++k) EXPECT_EQ(r.data_as<float>()[k], out[k]) << in[k];
}

TEST(CodegenIntrinsic, IntegerAbs) {
  const int n = 32;
  Buffer X = flat("X", DataType::Int32(), n), R = flat("R", DataType::Int32(), n);
  Var i("i");
  PrimFunc f("iabs", {X, R}, loop(i, n, st(R, call(Intrinsic::abs, {ld(X, i)}), i)));
  NDArray x = random_array(DataType::Int32(), n, 33, -1000, 1000), r(DataType::Int32(), {n});
  run(f, {&x, &r});
  for (int k = 0; k < n; ++k) ASSERT_EQ(r.data_as<int32_t>()[k], std::abs(x.data_as<int32_t>()[k]));
}

// a * b + 1 on 16-bit float buffers: computed in float32, rounded at the store.
void check_16bit_buffers(DataType t, float (*to_float)(uint16_t), uint16_t (*from_float)(float)) {
  SCOPED_TRACE(t.str());
  const int n = 96, lanes = 16;
  Buffer A = flat("A", t, n), B = flat("B", t, n), S = flat("S", t, n), V = flat("V", t, n);
  Buffer R = flat("R", DataType::Float32(), n);  // float32 rounded through t
  Buffer X = flat("X", DataType::Float32(), n);
  Var i("i"), io("io");
  Expr one = make_const(t, 1.0);
  Expr vi = vec(io * lanes, lanes);
  Stmt body = seq({
      loop(i, n, seq({st(S, ld(A, i) * ld(B, i) + one, i),
                      st(R, cast(DataType::Float32(), cast(t, ld(X, i))), i)})),
      loop(io, n / lanes, st(V, ld(A, vi) * ld(B, vi) + broadcast(one, lanes), vi)),
  });
  PrimFunc f("half_math", {A, B, X, S, V, R}, body);
  NDArray a = random_array(t, n, 40, -4, 4), b = random_array(t, n, 41, -4, 4);
  NDArray x = random_array(DataType::Float32(), n, 42, -100, 100);
  NDArray s(t, {n}), v(t, {n}), r(DataType::Float32(), {n});
  run(f, {&a, &b, &x, &s, &v, &r});
  for (int k = 0; k < n; ++k) {
    float av = to_float(a.data_as<uint16_t>()[k]), bv = to_float(b.data_as<uint16_t>()[k]);
    uint16_t expect = from_float(av * bv + 1.0f);
    ASSERT_EQ(s.data_as<uint16_t>()[k], expect) << av << " * " << bv;
    ASSERT_EQ(v.data_as<uint16_t>()[k], expect) << av << " * " << bv;
    float xv = x.data_as<float>()[k];
    ASSERT_EQ(r.data_as<float>()[k], to_float(from_float(xv))) << xv;
  }
}

TEST(CodegenIntrinsic, Float16Buffers) { check_16bit_buffers(DataType::Float(16), half_to_float, float_to_half); }

TEST(CodegenIntrinsic, BFloat16Buffers) {
  check_16bit_buffers(DataType::BFloat16(), bfloat16_to_float, float_to_bfloat16);
}

}  // namespace
}  // namespace kiln
