// fold_zero_points: an integer product's zero point taken out of the
// product, so that the product is the plain one the int8 dot products
// compute and the zero point a correction by sums of constant weights,
// computed once.
//
// A dynamically quantized model (onnxruntime's quantize_dynamic) quantizes
// each linear layer's input as it runs, with a zero point of its own, and
// multiplies it by constant int8 weights of zero point 0:
//
//   %y = MatMulInteger(%a, %B, %za, 0)          %p = MatMulInteger(%a, %B)
//                                         ->    %c = Mul(Cast(%za, int32), colsum(B))
//                                               %y = Sub(%p, %c)
//
// since sum_k (a - za) · b = sum_k a · b - za · sum_k b; colsum(B) is a
// constant [N] (int32) computed here. The Mul and Sub are the product's
// epilogue. The lowering (graph/operators/nn.h, integer_matmul) computes
// the same correction where B is not constant, its column sums per call.
// Folded where B is a constant matrix, A's zero point one value, and B's
// zero point absent or zeros.
#pragma once

#include "graph/graph.h"

namespace kiln::graph {

Graph fold_zero_points(const Graph& g);

}  // namespace kiln::graph
