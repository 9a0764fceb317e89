// The layers other families build on: the quantized operators
// (graph/operators/qlinear.cpp) are a convolution or a matrix product in
// integers with a requantization after, and take both from here.
#pragma once

#include "graph/operators/common.h"

namespace kiln::graph::operators {

// A Conv's output shape from data `x` and weights `w` (any dtypes: the
// caller checks them), checking its groups, kernel_shape and `bias` (may
// be null).
Shape conv_shape(const Node& n, const Value& x, const Value& w, const Value* bias);

// A Conv's compute definition (no bias) on `x` of shape `xs` and `w` of
// `ws`, with the node's strides, dilations, pads and groups: ops::conv2d_nchw
// for 2-D windows alike on both axes, else the formula. The product is in
// x's and w's type: integers are widened by the caller.
te::Tensor convolution(const Node& n, const te::Tensor& x, const te::Tensor& w, const Shape& xs, const Shape& ws,
                       const Shape& out);

// numpy.matmul's output shape for `a` by `b` (batches broadcast, vectors).
Shape matmul_shape(const Node& n, const Value& a, const Value& b);

// numpy.matmul of int8/uint8 `A` (shape a) and `B` (shape b) in int32,
// less the zero points given (null: none; one value, A's one per row, B's
// one per column). The 2-D form is the plain widened product the search
// tensorizes, with the zero points' terms after it; `small_weights` marks
// it as B holding 7 bits (tir/tensor_intrin.h, kSmallWeightsAnn).
te::Tensor integer_matmul(const Shape& a, const Shape& b, const Shape& out, const te::Tensor& A, const te::Tensor& B,
                          const te::Tensor* a_zp, const te::Tensor* b_zp, bool small_weights = false);

// Input `i` of `n`, a zero point, as a tensor of `in`; null where it is
// absent or a constant of zeros (which subtracts nothing).
const te::Tensor* zero_point_input(const Graph& g, const Node& n, size_t i, const Tensors& in);

}  // namespace kiln::graph::operators
