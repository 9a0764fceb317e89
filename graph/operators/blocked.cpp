// The internal operators of graph/layout.h: convolutions and max pooling
// on channels in blocks (NCHW[x]c), and the conversions into and out of
// that layout. Passes make them after shapes are known, so they have no
// shape rule; the importer never takes them.
#include "graph/layout.h"
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/quantize.h"
#include "ops/blocked.h"
#include "ops/common.h"
#include "ops/conv2d.h"
#include "ops/pad.h"
#include "ops/pool.h"
#include "ops/winograd.h"
#include "tir/tensor_intrin.h"

namespace kiln::graph::operators {
namespace {

// A blocked convolution's window from the node's attributes, and its data:
// the input as it is where the convolution pads it (alike on every side,
// with zeros), else an explicit pad stage of `pad_value` (asymmetric pads;
// a quantized input's zero point) and the convolution unpadded.
struct BlockedWindow {
  ops::Conv2dConfig cfg;
  te::Tensor data;
};
BlockedWindow blocked_window(const Graph& g, const Node& n, const te::Tensor& in, int64_t pad_value = 0) {
  const Value& x = required_input(g, n, 0);
  const Shape spatial{x.shape.at(2), x.shape.at(3)};
  const Shape kernel = n.attr_ints("kernel_shape", {});
  const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
  const Shape pads = window_pads(n, spatial, kernel, strides, dilations);
  BlockedWindow w{{}, in};
  w.cfg.stride = strides.at(0);
  w.cfg.dilation = dilations.at(0);
  w.cfg.groups = n.attr_int("group", 1);
  const bool alike = pads[0] == pads[1] && pads[1] == pads[2] && pads[2] == pads[3];
  if (alike && (pad_value == 0 || pads[0] == 0))
    w.cfg.pad = pads[0];
  else
    w.data = ops::pad(in, {0, 0, pads[0], pads[1], 0}, {0, 0, pads[2], pads[3], 0}, make_const(x.dtype, pad_value));
  return w;
}

// The blocked convolutions of graph/layout.h: data [N, C/cb, H, W, cb],
// weights as ops/blocked.h has them, the bias [K/kb, kb].
te::Tensor conv_nchwc(const Graph& g, const Node& n, const Tensors& in) {
  const auto [cfg, data] = blocked_window(g, n, in[0]);
  te::Tensor y = n.op == kWinogradConvNCHWc ? ops::conv2d_winograd_nchwc(data, in[1], cfg.pad, n.attr_int("winograd_tile", 0))
                 : n.op == kConvNCHWc       ? ops::conv2d_nchwc(data, in[1], cfg)
                 : n.op == kGroupedConvNCHWc ? ops::grouped_conv2d_nchwc(data, in[1], cfg)
                                            : ops::depthwise_conv2d_nchwc(data, in[1], cfg);
  if (!g.input(n, 2)) return y;
  const te::Tensor& bias = in[2];
  return te::compute(
      y.shape(), [&](Var b, Var k, Var p, Var q, Var c) { return y(b, k, p, q, c) + bias(k, c); }, "bias_add");
}

// graph/layout.h's QLinearConvNCHWc: the int8 product on blocked channels,
// padded with x's zero point, then requantized per output channel.
te::Tensor qlinear_conv_nchwc(const Graph& g, const Node& n, const Tensors& in) {
  const auto [cfg, data] = blocked_window(g, n, in[0], n.attr_int("pad_value", 0));
  te::Tensor acc = ops::conv2d_nchwc_dot4(data, in[1], cfg, DataType::Int(32));
  if (holds_7_bits(required_input(g, n, 1))) acc = te::annotate(acc, kSmallWeightsAnn, Expr(1));
  const te::Tensor &offset = in[2], &multiplier = in[3], &y_zp = in[4];
  return te::compute(
      acc.shape(),
      [&](Var b, Var k, Var p, Var q, Var c) {
        const Expr v = cast(DataType::Float32(), acc(b, k, p, q, c) + offset(k, c)) * multiplier(k, c);
        return round_to_quantized(v, param_at(y_zp, 0), y_zp.dtype());
      },
      "requantize");
}

// graph/layout.h's blocked MaxPool: its window is one ops/pool.h takes.
te::Tensor max_pool_nchwc(const Graph&, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape kernel = n.attr_ints("kernel_shape", {});
  return ops::max_pool2d_nchwc(x, {kernel.at(0), kernel.at(1), n.attr_ints("strides", {1, 1}).at(0),
                                   n.attr_ints("pads", {0, 0, 0, 0}).at(0)});
}

// The transforms' attributes: ToNCHWc {block, channels: padded to, 0 or
// absent where not}; FromNCHWc {channels: the plain value's, where the
// blocked one is padded}.
te::Tensor to_nchwc(const Graph&, const Node& n, const Tensors& in) {
  return ops::to_nchwc(in.at(0), n.attr_int("block", 1), n.attr_int("channels", 0));
}

te::Tensor from_nchwc(const Graph&, const Node& n, const Tensors& in) {
  return ops::from_nchwc(in.at(0), n.attr_int("channels", 0));
}

}  // namespace

std::vector<OpDef> blocked_ops() {
  const LowerFn conv = one_output(conv_nchwc);
  return {
      {kConvNCHWc, "a Conv on blocked channels", OpPattern::kAnchor, {}, conv},
      {kDepthwiseConvNCHWc, "a depthwise Conv on blocked channels", OpPattern::kAnchor, {}, conv},
      {kGroupedConvNCHWc, "a grouped Conv on blocked channels", OpPattern::kAnchor, {}, conv},
      {kWinogradConvNCHWc, "a 3×3 Conv on blocked channels by Winograd's algorithm", OpPattern::kAnchor, {}, conv},
      {kQLinearConvNCHWc, "a QLinearConv on blocked uint8 channels, int8 dot products", OpPattern::kAnchor, {},
       one_output(qlinear_conv_nchwc)},
      {kMaxPoolNCHWc, "a MaxPool on blocked channels", OpPattern::kReduction, {}, one_output(max_pool_nchwc)},
      {kToNCHWc, "NCHW to NCHW[block]c", OpPattern::kInjective, {}, one_output(to_nchwc)},
      {kFromNCHWc, "NCHW[block]c to NCHW", OpPattern::kInjective, {}, one_output(from_nchwc)},
  };
}

}  // namespace kiln::graph::operators
