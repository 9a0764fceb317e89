// The narrow float formats (float16, bfloat16) the interpreter stores.
//
// Values travel through the interpreter as doubles; a narrow value is a double
// that happens to be exactly representable in its format. Rounding goes
// straight from double to the target format (one rounding, to nearest even),
// so a float64 value cast to float16 is not rounded twice on the way.
#pragma once

#include <cstdint>

namespace kiln::interp {

enum class FloatFormat : uint8_t { kF64, kF32, kF16, kBF16 };

// x rounded to the nearest value of the format (ties to even); values past the
// largest finite one become infinities, NaN stays NaN.
double round_to_format(FloatFormat f, double x);

// Bit encodings in memory. encode_* round first.
uint16_t encode_half(double x);
double decode_half(uint16_t bits);
uint16_t encode_bfloat16(double x);
double decode_bfloat16(uint16_t bits);

}  // namespace kiln::interp
