// Arithmetic semantics at declared widths, compared with C++ computing the
// same thing at those widths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "test_programs.h"
#include "tir/interp/float_formats.h"

namespace kiln {
namespace {

using test::host;
using test::loop;

// out[i] = op(a[i], b[i]) for i < n, in lowered form.
template <typename In, typename Out>
std::vector<Out> elementwise(DataType in_t, DataType out_t, const std::vector<In>& a, const std::vector<In>& b,
                             const std::function<Expr(Expr, Expr)>& op) {
  const int n = static_cast<int>(a.size());
  Buffer A("A", in_t, {Expr(n)}), B("B", in_t, {Expr(n)}), O("O", out_t, {Expr(n)});
  Var i("i");
  PrimFunc f("elementwise", {A, B, O}, loop(i, n, buffer_store(O, op(buffer_load(A, {i}), buffer_load(B, {i})), {i})));
  std::vector<In> av = a, bv = b;
  std::vector<Out> out(n);
  interpret(f, {host(av, in_t, {n}), host(bv, in_t, {n}), host(out, out_t, {n})});
  return out;
}

TEST(InterpSemantics, Int8WrapsAround) {
  const DataType i8 = DataType::Int(8);
  std::vector<int8_t> a = {100, -100, 127, -128, 77}, b = {100, -100, 1, -1, 3};
  auto sum = elementwise<int8_t, int8_t>(i8, i8, a, b, [](Expr x, Expr y) { return x + y; });
  auto prod = elementwise<int8_t, int8_t>(i8, i8, a, b, [](Expr x, Expr y) { return x * y; });
  auto diff = elementwise<int8_t, int8_t>(i8, i8, a, b, [](Expr x, Expr y) { return x - y; });
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(sum[k], static_cast<int8_t>(a[k] + b[k])) << k;
    EXPECT_EQ(prod[k], static_cast<int8_t>(a[k] * b[k])) << k;
    EXPECT_EQ(diff[k], static_cast<int8_t>(a[k] - b[k])) << k;
  }
  EXPECT_EQ(sum[0], -56);
  // The one overflowing quotient wraps, as two's complement does.
  auto q = elementwise<int8_t, int8_t>(i8, i8, {-128}, {-1}, [](Expr x, Expr y) { return x / y; });
  EXPECT_EQ(q[0], -128);
}

TEST(InterpSemantics, UnsignedAndWideIntegers) {
  const DataType u8 = DataType::UInt(8), u64 = DataType::UInt(64), i64 = DataType::Int64();
  auto d = elementwise<uint8_t, uint8_t>(u8, u8, {0, 200}, {1, 100}, [](Expr x, Expr y) { return x - y; });
  EXPECT_EQ(d, (std::vector<uint8_t>{255, 100}));
  auto s = elementwise<uint8_t, uint8_t>(u8, u8, {200}, {100}, [](Expr x, Expr y) { return x + y; });
  EXPECT_EQ(s[0], 44);
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  auto lt = elementwise<uint64_t, uint8_t>(u64, DataType::Bool(), {1, big}, {big, 1}, [](Expr x, Expr y) { return x < y; });
  EXPECT_EQ(lt, (std::vector<uint8_t>{1, 0}));
  auto qu = elementwise<uint64_t, uint64_t>(u64, u64, {big}, {2}, [](Expr x, Expr y) { return x / y; });
  EXPECT_EQ(qu[0], big / 2);
  const int64_t imax = std::numeric_limits<int64_t>::max();
  auto m = elementwise<int64_t, int64_t>(i64, i64, {imax}, {3}, [](Expr x, Expr y) { return x * y; });
  EXPECT_EQ(m[0], static_cast<int64_t>(static_cast<uint64_t>(imax) * 3u));
}

TEST(InterpSemantics, TruncatingAndFlooredDivision) {
  const DataType i32 = DataType::Int32();
  std::vector<int32_t> a = {-7, 7, -7, 7, -6, 0}, b = {2, -2, -2, 2, 3, -5};
  auto div_t = elementwise<int32_t, int32_t>(i32, i32, a, b, [](Expr x, Expr y) { return x / y; });
  auto mod_t = elementwise<int32_t, int32_t>(i32, i32, a, b, [](Expr x, Expr y) { return x % y; });
  auto div_f = elementwise<int32_t, int32_t>(i32, i32, a, b, [](Expr x, Expr y) { return floordiv(x, y); });
  auto mod_f = elementwise<int32_t, int32_t>(i32, i32, a, b, [](Expr x, Expr y) { return floormod(x, y); });
  EXPECT_EQ(div_t, (std::vector<int32_t>{-3, -3, 3, 3, -2, 0}));
  EXPECT_EQ(mod_t, (std::vector<int32_t>{-1, 1, -1, 1, 0, 0}));
  EXPECT_EQ(div_f, (std::vector<int32_t>{-4, -4, 3, 3, -2, 0}));
  EXPECT_EQ(mod_f, (std::vector<int32_t>{1, -1, -1, 1, 0, 0}));
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(div_f[k] * b[k] + mod_f[k], a[k]) << k;
}

uint16_t half_bits(float x) { return interp::encode_half(x); }

TEST(InterpSemantics, Float16RoundsOnStoreToNearestEven) {
  const DataType f32 = DataType::Float32(), f16 = DataType::Float(16);
  std::vector<float> a = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65519.0f, 65520.0f, 1e-8f, 3e-8f, -2.5f};
  Buffer A("A", f32, {Expr(7)}), H("H", f16, {Expr(7)});
  Var i("i");
  std::vector<uint16_t> h(7);
  interpret(PrimFunc("to_half", {A, H}, loop(i, 7, buffer_store(H, cast(f16, buffer_load(A, {i})), {i}))),
            {host(a, f32, {7}), host(h, f16, {7})});
  EXPECT_EQ(h[0], 0x3C00);  // tie: 1 + 2^-11 goes to 1.0 (even)
  EXPECT_EQ(h[1], 0x3C02);  // tie: goes up to the even neighbour 1 + 2^-9
  EXPECT_EQ(h[2], 0x7BFF);  // 65504, the largest half
  EXPECT_EQ(h[3], 0x7C00);  // past the halfway point to 2^16: infinity
  EXPECT_EQ(h[4], 0x0000);  // under half the smallest subnormal
  EXPECT_EQ(h[5], 0x0001);  // the smallest subnormal, 2^-24
  EXPECT_EQ(h[6], 0xC100);
  EXPECT_EQ(interp::decode_half(0x0001), 0x1p-24);
  EXPECT_EQ(half_bits(interp::decode_half(0x3555)), 0x3555);
}

// Half arithmetic computes in float32 and rounds only on store:
// 2048 + 1 + 1 is 2050, not 2048 as rounding after each addition would give.
TEST(InterpSemantics, Float16ComputesInFloat32) {
  const DataType f16 = DataType::Float(16);
  std::vector<uint16_t> a = {half_bits(2048.0f)}, b = {half_bits(1.0f)};
  auto sum = elementwise<uint16_t, uint16_t>(f16, f16, a, b, [](Expr x, Expr y) { return x + y + y; });
  EXPECT_EQ(interp::decode_half(sum[0]), 2050.0);
  auto once = elementwise<uint16_t, uint16_t>(f16, f16, a, b, [](Expr x, Expr y) { return x + y; });
  EXPECT_EQ(interp::decode_half(once[0]), 2048.0);  // 2049 is a tie between 2048 and 2050
}

TEST(InterpSemantics, BFloat16) {
  const DataType bf = DataType::BFloat16(), f32 = DataType::Float32();
  std::vector<float> a = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 3.0f};
  Buffer A("A", f32, {Expr(3)}), H("H", bf, {Expr(3)});
  Var i("i");
  std::vector<uint16_t> h(3);
  interpret(PrimFunc("to_bf16", {A, H}, loop(i, 3, buffer_store(H, cast(bf, buffer_load(A, {i})), {i}))),
            {host(a, f32, {3}), host(h, bf, {3})});
  EXPECT_EQ(h[0], 0x3F80);
  EXPECT_EQ(h[1], 0x3F82);
  EXPECT_EQ(h[2], 0x4040);
}

TEST(InterpSemantics, IntrinsicsComputeInDoubleAndRound) {
  const DataType f32 = DataType::Float32();
  std::vector<float> a = {0.3f, 2.5f, -1.5f, 4.0f, 3.5f, -0.7f}, b = {1.7f, 0.5f, 2.0f, -0.25f, 0.0f, 3.0f};
  struct Unary {
    Intrinsic op;
    double (*ref)(double);
  };
  const Unary unary[] = {
      {Intrinsic::exp, [](double x) { return std::exp(x); }},
      {Intrinsic::log, [](double x) { return std::log(std::fabs(x)); }},
      {Intrinsic::sqrt, [](double x) { return std::sqrt(std::fabs(x)); }},
      {Intrinsic::rsqrt, [](double x) { return 1.0 / std::sqrt(std::fabs(x)); }},
      {Intrinsic::tanh, [](double x) { return std::tanh(x); }},
      {Intrinsic::sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {Intrinsic::erf, [](double x) { return std::erf(x); }},
      {Intrinsic::abs, [](double x) { return std::fabs(x); }},
      {Intrinsic::floor, [](double x) { return std::floor(x); }},
      {Intrinsic::ceil, [](double x) { return std::ceil(x); }},
      {Intrinsic::sin, [](double x) { return std::sin(x); }},
      {Intrinsic::atan, [](double x) { return std::atan(x); }},
      {Intrinsic::sinh, [](double x) { return std::sinh(x); }},
  };
  for (const Unary& u : unary) {
    const bool needs_abs = u.op == Intrinsic::log || u.op == Intrinsic::sqrt || u.op == Intrinsic::rsqrt;
    auto out = elementwise<float, float>(f32, f32, a, b, [&](Expr x, Expr) {
      return call(u.op, {needs_abs ? call(Intrinsic::abs, {x}) : x});
    });
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_EQ(out[k], static_cast<float>(u.ref(a[k]))) << intrinsic_name(u.op) << "(" << a[k] << ")";
  }
  auto rounded = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr) { return call(Intrinsic::round, {x}); });
  EXPECT_EQ(rounded, (std::vector<float>{0.0f, 2.0f, -2.0f, 4.0f, 4.0f, -1.0f}));  // ties to even
  auto pw = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr y) { return call(Intrinsic::pow, {call(Intrinsic::abs, {x}), y}); });
  auto fm = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr y) { return call(Intrinsic::fma, {x, y, x}); });
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(pw[k], static_cast<float>(std::pow(std::fabs(static_cast<double>(a[k])), static_cast<double>(b[k])))) << k;
    EXPECT_EQ(fm[k], static_cast<float>(std::fma(static_cast<double>(a[k]), b[k], a[k]))) << k;
  }
}

TEST(InterpSemantics, FloatMinMaxAndFlooredDivision) {
  const DataType f32 = DataType::Float32();
  std::vector<float> a = {-7.0f, 7.5f, 1.0f}, b = {2.0f, -2.0f, 3.0f};
  auto fd = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr y) { return floordiv(x, y); });
  auto fmod_ = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr y) { return floormod(x, y); });
  auto mn = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr y) { return min(x, y); });
  auto q = elementwise<float, float>(f32, f32, a, b, [](Expr x, Expr y) { return x / y; });
  EXPECT_EQ(fd, (std::vector<float>{-4.0f, -4.0f, 0.0f}));
  EXPECT_EQ(fmod_, (std::vector<float>{1.0f, -0.5f, 1.0f}));
  EXPECT_EQ(mn, (std::vector<float>{-7.0f, -2.0f, 1.0f}));
  EXPECT_EQ(q[2], 1.0f / 3.0f);
  // Float division by zero is IEEE, not an error.
  auto inf = elementwise<float, float>(f32, f32, {1.0f}, {0.0f}, [](Expr x, Expr y) { return x / y; });
  EXPECT_TRUE(std::isinf(inf[0]));
}

TEST(InterpSemantics, Casts) {
  const DataType f32 = DataType::Float32(), i32 = DataType::Int32(), i8 = DataType::Int(8);
  auto to_int = elementwise<float, int32_t>(f32, i32, {-2.7f, 2.7f, -0.5f}, {0, 0, 0},
                                            [](Expr x, Expr) { return cast(DataType::Int32(), x); });
  EXPECT_EQ(to_int, (std::vector<int32_t>{-2, 2, 0}));
  auto narrowed = elementwise<int32_t, int8_t>(i32, i8, {300, -129}, {0, 0}, [](Expr x, Expr) { return cast(DataType::Int(8), x); });
  EXPECT_EQ(narrowed, (std::vector<int8_t>{44, 127}));
  auto to_bool = elementwise<float, uint8_t>(f32, DataType::Bool(), {0.0f, -0.1f}, {0, 0},
                                             [](Expr x, Expr) { return cast(DataType::Bool(), x); });
  EXPECT_EQ(to_bool, (std::vector<uint8_t>{0, 1}));
  auto big = elementwise<int32_t, float>(i32, f32, {16777217}, {0}, [](Expr x, Expr) { return cast(DataType::Float32(), x); });
  EXPECT_EQ(big[0], 16777216.0f);
  try {
    elementwise<float, int8_t>(f32, i8, {300.5f}, {0}, [](Expr x, Expr) { return cast(DataType::Int(8), x); });
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cast of 300.5 to int8 is out of range"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln
