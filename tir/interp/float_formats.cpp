#include "tir/interp/float_formats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace kiln::interp {

namespace {

// A binary float format by its precision (significand bits, the implicit one
// included), smallest normal exponent and largest finite value.
struct Format {
  int precision;
  int min_exp;
  double max_finite;
};

constexpr Format kHalf{11, -14, 65504.0};
constexpr Format kBFloat16{8, -126, 0x1.FEp127};

double round_to(const Format& f, double x) {
  if (!std::isfinite(x) || x == 0.0) return x;
  // Scale so that the format's last significand bit has weight one, round to
  // an integer (ties to even in the default rounding mode), scale back. Below
  // the normal range the last bit's weight stays fixed: subnormals.
  int e = std::max(std::ilogb(x), f.min_exp);
  double r = std::ldexp(std::nearbyint(std::ldexp(x, f.precision - 1 - e)), e - (f.precision - 1));
  if (std::fabs(r) > f.max_finite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

}  // namespace

double round_to_format(FloatFormat f, double x) {
  switch (f) {
    case FloatFormat::kF64: return x;
    case FloatFormat::kF32: return static_cast<double>(static_cast<float>(x));
    case FloatFormat::kF16: return round_to(kHalf, x);
    case FloatFormat::kBF16: return round_to(kBFloat16, x);
  }
  return x;
}

uint16_t encode_half(double x) {
  double r = round_to(kHalf, x);
  uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  if (std::isnan(r)) return 0x7E00;
  if (std::isinf(r)) return sign | 0x7C00;
  double a = std::fabs(r);
  if (a == 0.0) return sign;
  int e = std::ilogb(a);
  if (e < kHalf.min_exp) return sign | static_cast<uint16_t>(std::ldexp(a, 24));  // subnormal
  auto mant = static_cast<uint16_t>(std::ldexp(a, 10 - e) - 1024.0);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

double decode_half(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exp = (bits >> 10) & 0x1F;
  int mant = bits & 0x3FF;
  if (exp == 0x1F) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(mant + 1024, exp - 25);
}

uint16_t encode_bfloat16(double x) {
  double r = round_to(kBFloat16, x);
  if (std::isnan(r)) return 0x7FC0;
  // r is exact in float32, whose upper half is the bfloat16 encoding.
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(r)) >> 16);
}

double decode_bfloat16(uint16_t bits) {
  return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits) << 16));
}

}  // namespace kiln::interp
