// The arithmetic the quantized operators share (graph/operators/quantize.cpp,
// qlinear.cpp).
#pragma once

#include "core/dtype.h"
#include "core/expr.h"
#include "graph/graph.h"
#include "tir/te/tensor.h"

namespace kiln::graph::operators {

// Whether `t` is int8 or uint8: the types ONNX quantizes to.
bool is_quantized_type(DataType t);

// QuantizeLinear's arithmetic after its division: round(v) (half to even)
// plus `zero_point` (undefined: none), saturated to `out` (int8 or uint8)
// and cast to it; v is a float.
Expr round_to_quantized(const Expr& v, const Expr& zero_point, DataType out);

// A quantization parameter (a scale or a zero point) at channel `k`: its
// one value (shape [] or [1]), or its k-th. Call it inside a compute body.
Expr param_at(const te::Tensor& p, const Expr& k);

// Whether `v` is a constant whose values all lie in [-64, 64]: int8
// weights of 7 bits, which the int8 products mark for the intrinsics that
// need them (tir/tensor_intrin.h, kSmallWeightsAnn).
bool holds_7_bits(const Value& v);

}  // namespace kiln::graph::operators
