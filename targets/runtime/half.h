// Conversions between float32 and the 16-bit float formats kiln buffers may
// hold. Host code (tests, random fills, reference checks) needs them;
// generated code does the same conversions inline.
#pragma once

#include <cstdint>

namespace kiln {

// IEEE binary16, round to nearest even; overflow gives infinity, NaN stays NaN.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
// bfloat16 (the top half of a float32), round to nearest even.
uint16_t float_to_bfloat16(float f);
float bfloat16_to_float(uint16_t b);

}  // namespace kiln
