// Recognizers: passes that find an operator an exporter wrote out as its
// arithmetic and put the operator back, so that fusion and the tuner see
// one LayerNormalization, one Gelu, one attention, not the ten nodes that
// compute each. They run after fold_batch_norm (graph/passes.h); each
// replaces the pattern's last node and leaves the rest to
// eliminate_dead_code. A pattern whose inner values something else reads
// too is left as it is.
//
// recognize_layer_norm, the opset < 17 form of LayerNorm:
//
//   %m = ReduceMean(%x) {axes=[-1]}              %y = LayerNormalization(%x, %g, %b)
//   %d = Sub(%x, %m)                                    {axis=-1, epsilon=1e-5}
//   %v = ReduceMean(Pow(%d, 2)) {axes=[-1]}  ->
//   %y = Add(Mul(Div(%d, Sqrt(Add(%v, 1e-5))), %g), %b)
//
// (Mul(%d, %d) for the Pow; the Mul and Add optional; the axes any
// trailing ones.)
//
// recognize_gelu, both forms, the Muls and Divs by constants in any order
// and grouping:
//
//   %y = 0.5 * %x * (1 + Erf(%x / 1.4142))                       -> Gelu(%x)
//   %y = 0.5 * %x * (1 + Tanh(0.79788 * (%x + 0.044715 * %x^3)))  -> Gelu(%x) {approximate="tanh"}
//
// recognize_silu, the activation of EfficientNet and YOLO (SiLU, or
// swish), which the exporters write as two nodes whose diamond (the
// input read by both) no fusion chain takes: after it, a Conv's epilogue.
//
//   %s = Sigmoid(%x)
//   %y = Mul(%x, %s)      ->   %y = kiln.SiLU(%x)
//
// recognize_attention, scaled dot-product attention:
//
//   %s = MatMul(%q, %kt)                          %o = kiln.Attention(%q, %kt, %v, %mask, %keep)
//   %z = Where(%keep, Add(%s * c, %mask), fill)  ->      {scale=c, fill=fill}
//   %o = MatMul(Softmax(%z), %v)
//
// the scale a Mul or Div by a constant of the product or of %q or %kt, the
// Add and the Where each optional (graph/operators/attention.cpp).
#pragma once

#include "graph/graph.h"

namespace kiln::graph {

// The operator recognize_attention makes: inputs Q [..., S, D], Kᵀ
// [..., D, T], V [..., T, E], then the optional additive mask and the
// optional keep condition (bool), each broadcast onto [..., S, T];
// attributes scale and fill. Its output [..., S, E] is
// softmax(where(keep, scale * Q·Kᵀ + mask, fill)) · V.
constexpr const char* kAttention = "kiln.Attention";
// Its attribute that pads the keys past T for vectors (graph/pad_attention.h).
constexpr const char* kPaddedKeys = "padded_keys";

// The operator recognize_silu makes: x * sigmoid(x), elementwise.
constexpr const char* kSiLU = "kiln.SiLU";

Graph recognize_layer_norm(const Graph& g);
Graph recognize_silu(const Graph& g);
Graph recognize_gelu(const Graph& g);
Graph recognize_attention(const Graph& g);

}  // namespace kiln::graph
