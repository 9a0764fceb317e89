#include "targets/runtime/half.h"

#include <bit>
#include <cmath>

namespace kiln {

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN, inf
  if (mag >= 0x477ff000u) return sign | 0x7c00u;  // rounds past the largest half: inf
  if (mag < 0x38800000u) {
    // Subnormal half (or zero): scale so that the half's ulp is one unit of
    // the integer part, and let float rounding (nearest even) do the work.
    float scaled = std::bit_cast<float>(mag) * 16777216.0f;  // 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t rounded = mag + 0xfffu + ((mag >> 13) & 1u);  // nearest even on the 13 dropped bits
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0) {
    float v = static_cast<float>(man) / 16777216.0f;  // man * 2^-24
    return std::bit_cast<float>(std::bit_cast<uint32_t>(v) | sign);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

}  // namespace kiln
