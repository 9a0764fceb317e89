// The arithmetic the quantized operators share (graph/operators/quantize.cpp,
// qlinear.cpp).
#pragma once

#include "core/dtype.h"
#include "core/expr.h"

namespace kiln::graph::operators {

// Whether `t` is int8 or uint8: the types ONNX quantizes to.
bool is_quantized_type(DataType t);

// QuantizeLinear's arithmetic after its division: round(v) (half to even)
// plus `zero_point` (undefined: none), saturated to `out` (int8 or uint8)
// and cast to it; v is a float.
Expr round_to_quantized(const Expr& v, const Expr& zero_point, DataType out);

}  // namespace kiln::graph::operators
