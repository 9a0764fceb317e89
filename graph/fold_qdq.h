// fold_qdq: a quantized (QDQ) model's convolutions computed in integers.
//
// A model quantized in the QDQ format (onnxruntime's quantization tool,
// PyTorch's and TensorFlow's exporters) stays a float graph: each
// convolution reads dequantized data and weights, and its output is
// quantized again for the next one. Run as written, the product is in
// float. The pattern is one quantized convolution, which ONNX has as an
// operator:
//
//   %x  = DequantizeLinear(%xq, sx, zx)
//   %w  = DequantizeLinear(%wq, sw, 0)              (a constant: int8, per channel or not)
//   %b  = (a float constant, DequantizeLinear of int32 or not)
//   %y  = Conv(%x, %w, %b)
//  [%y  = Relu(%y)]
//   %yq = QuantizeLinear(%y, sy, zy)
//     ->
//   %yq = QLinearConv(%xq, sx, zx, %wq, sw, 0, sy, zy, round(%b / (sx · sw)))
//
// QLinearConv computes the product in int32 exactly and rounds once, where
// the float graph rounds each product; the two agree within one step of
// the output's quantization. A Relu folds where zy is the lowest value of
// its type (a quantized Relu's output: the saturation is the Relu). Folded
// where sx, zx, sy and zy are one value each and constant, the weights'
// zero points are zero (symmetric, as every quantization tool makes them
// for int8) and %y is read by nothing else; the DequantizeLinear of %x
// stays for its other readers, if any. int8 data (onnxruntime's default)
// is read as uint8, x + 128 of zero point zx + 128, by a DequantizeLinear
// and a QuantizeLinear of scale 1 written once per value (exact; fused
// into whatever computes x): the int8 dot products take uint8 data.
// A MatMul or Gemm of dequantized data by dequantized constant int8
// weights (zero points zero) becomes the integer product scaled back to
// float,
//
//   %y = MatMul(DQ(%a, sa, za), DQ(%W, sw, 0)) [+ C]
//     -> %y = Add(Mul(Cast(MatMulInteger(%a, %W', za), float), sa · sw), C)
//
// (W' the weights as [K, N], a Gemm's transposed ones transposed here; A of
// more than two axes reshaped to rows and back); its output stays float,
// as the graph had it, for whatever follows. graph/fold_zero_points.h then
// takes za out of the product, which the search tensorizes.
// graph/layout.h then computes the
// QLinearConv on blocked channels with the CPU's int8 dot products.
#pragma once

#include "graph/graph.h"

namespace kiln::graph {

Graph fold_qdq(const Graph& g);

}  // namespace kiln::graph
