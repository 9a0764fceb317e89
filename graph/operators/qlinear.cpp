// The integer convolutions and products of ONNX's quantized operators:
//
//   ConvInteger    y = conv(x - x_zp, w - w_zp)                  in int32
//   QLinearConv    y = q(conv(x - x_zp, w - w_zp) + B, x_scale * w_scale / y_scale, y_zp)
//   QLinearMatMul  y = q(matmul(a - a_zp, b - b_zp), a_scale * b_scale / y_scale, y_zp)
//
// where q(v, m, zp) = saturate(round(v * m) + zp) to y_zp's type. Operands
// int8 or uint8; w's (b's) scale and zero point one value or one per output
// channel (column); x's (a's) one value. These are the definitions: the
// reference executor runs them, and each product is the one of
// graph/operators/nn.h. The fast form of a quantized convolution is
// graph/fold_qdq.h's and graph/layout.h's, which compute the integer
// product on blocked channels with the CPU's dot-product instructions.
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/nn.h"
#include "graph/operators/quantize.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

const DataType kI32 = DataType::Int(32);

void require_quantized(const Node& n, const Value& v) {
  if (!is_quantized_type(v.dtype))
    KILN_USER_ERROR() << n.describe() << ": input '" << v.name << "' is " << v.dtype.str() << ", not int8 or uint8";
}

// Input `i`, a scale or zero point, checked: one value, or with `per` > 0
// one value or `per` of them.
void require_param(const Graph& g, const Node& n, size_t i, int64_t per, DataType dtype, bool required) {
  const Value* v = required ? &required_input(g, n, i) : g.input(n, i);
  if (!v) return;
  if (v->dtype != dtype)
    KILN_USER_ERROR() << n.describe() << ": input " << i << " ('" << v->name << "') is " << v->dtype.str() << ", not "
                      << dtype.str();
  if (v->numel() != 1 && (per == 0 || v->shape != Shape{per}))
    KILN_USER_ERROR() << n.describe() << ": input " << i << " ('" << v->name << "') of shape " << shape_str(v->shape)
                      << " is neither one value" << (per ? " nor one per output channel (" + std::to_string(per) + ")" : "");
}

// t in int32 less its zero point `zp` (null: none), which runs along `axis`
// of t when it has one value per element of it.
te::Tensor shifted(const te::Tensor& t, const te::Tensor* zp, size_t axis, const std::string& name) {
  return te::compute(
      t.shape(),
      [&](const std::vector<Var>& i) {
        Expr v = cast(kI32, t(std::vector<Expr>(i.begin(), i.end())));
        return zp ? v - cast(kI32, param_at(*zp, i[axis])) : v;
      },
      name);
}

// Checks x (input 0), w (input `w`) and their zero points (`x_zp`, `w_zp`)
// of a convolution; returns its output shape.
Shape integer_conv_shape(const Graph& g, const Node& n, size_t w, size_t x_zp, size_t w_zp, const Value* bias) {
  const Value& x = required_input(g, n, 0);
  const Value& wv = required_input(g, n, w);
  require_quantized(n, x);
  require_quantized(n, wv);
  require_param(g, n, x_zp, 0, x.dtype, false);
  require_param(g, n, w_zp, wv.shape.empty() ? 0 : wv.shape[0], wv.dtype, false);
  return conv_shape(n, x, wv, bias);
}

// conv(x - x_zp, w - w_zp) in int32, x input 0 and w input `w`.
te::Tensor integer_conv(const Graph& g, const Node& n, const Tensors& in, size_t w, size_t x_zp, size_t w_zp) {
  const te::Tensor x = shifted(in[0], zero_point_input(g, n, x_zp, in), 1, "x_shifted");
  const te::Tensor k = shifted(in[w], zero_point_input(g, n, w_zp, in), 0, "w_shifted");
  return convolution(n, x, k, required_input(g, n, 0).shape, required_input(g, n, w).shape, out_shape(g, n));
}

void conv_integer_rule(const Node& n, Graph& g) {
  set_output(g, n, 0, kI32, integer_conv_shape(g, n, 1, 2, 3, nullptr));
}

te::Tensor conv_integer(const Graph& g, const Node& n, const Tensors& in) { return integer_conv(g, n, in, 1, 2, 3); }

void qlinear_conv_rule(const Node& n, Graph& g) {
  const Value* bias = g.input(n, 8);
  if (bias && bias->dtype != kI32) KILN_USER_ERROR() << n.describe() << ": bias of " << bias->dtype.str() << ", not int32";
  const Shape out = integer_conv_shape(g, n, 3, 2, 5, bias);
  const int64_t K = required_input(g, n, 3).shape[0];
  require_param(g, n, 1, 0, DataType::Float32(), true);
  require_param(g, n, 4, K, DataType::Float32(), true);
  require_param(g, n, 6, 0, DataType::Float32(), true);
  const Value& y_zp = required_input(g, n, 7);
  require_quantized(n, y_zp);
  require_param(g, n, 7, 0, y_zp.dtype, true);
  set_output(g, n, 0, y_zp.dtype, out);
}

// q(acc + bias, x_scale * w_scale[k] / y_scale, y_zp) over acc's elements,
// channel axis `channel`: the requantization both operators end in.
te::Tensor requantize(const te::Tensor& acc, const te::Tensor* bias, const te::Tensor& x_scale,
                      const te::Tensor& w_scale, const te::Tensor& y_scale, const te::Tensor& y_zp, size_t channel) {
  return te::compute(
      acc.shape(),
      [&](const std::vector<Var>& i) {
        Expr v = acc(std::vector<Expr>(i.begin(), i.end()));
        if (bias) v = v + (*bias)(i[channel]);
        const Expr m = param_at(x_scale, 0) * param_at(w_scale, i[channel]) / param_at(y_scale, 0);
        return round_to_quantized(cast(DataType::Float32(), v) * m, param_at(y_zp, 0), y_zp.dtype());
      },
      "requantize");
}

te::Tensor qlinear_conv(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor acc = integer_conv(g, n, in, 3, 2, 5);
  return requantize(acc, g.input(n, 8) ? &in[8] : nullptr, in[1], in[4], in[6], in[7], 1);
}

void qlinear_matmul_rule(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 3);
  require_quantized(n, a);
  require_quantized(n, b);
  const Shape out = matmul_shape(n, a, b);
  const int64_t N = b.shape.size() > 1 ? b.shape.back() : 0;  // a vector B: one value each
  require_param(g, n, 1, 0, DataType::Float32(), true);
  require_param(g, n, 2, 0, a.dtype, true);
  require_param(g, n, 4, N, DataType::Float32(), true);
  require_param(g, n, 5, N, b.dtype, true);
  require_param(g, n, 6, 0, DataType::Float32(), true);
  const Value& y_zp = required_input(g, n, 7);
  require_quantized(n, y_zp);
  require_param(g, n, 7, 0, y_zp.dtype, true);
  set_output(g, n, 0, y_zp.dtype, out);
}

te::Tensor qlinear_matmul(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& out = out_shape(g, n);
  const te::Tensor acc =
      integer_matmul(required_input(g, n, 0).shape, required_input(g, n, 3).shape, out, in[0], in[3],
                     zero_point_input(g, n, 2, in), zero_point_input(g, n, 5, in), holds_7_bits(required_input(g, n, 3)));
  return requantize(acc, nullptr, in[1], in[4], in[6], in[7], out.size() - 1);
}

}  // namespace

std::vector<OpDef> qlinear_ops() {
  return {
      {"ConvInteger", "Conv of int8/uint8 less their zero points, in int32", OpPattern::kAnchor, conv_integer_rule,
       one_output(conv_integer)},
      {"QLinearConv", "ConvInteger plus an int32 bias, requantized by x_scale * w_scale / y_scale to y's zero point",
       OpPattern::kAnchor, qlinear_conv_rule, one_output(qlinear_conv)},
      {"QLinearMatMul", "MatMulInteger requantized by a_scale * b_scale / y_scale to y's zero point",
       OpPattern::kAnchor, qlinear_matmul_rule, one_output(qlinear_matmul)},
  };
}

}  // namespace kiln::graph::operators
