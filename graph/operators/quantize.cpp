// Linear quantization: QuantizeLinear and DequantizeLinear, elementwise
// with a scale and a zero point per tensor or per channel (along `axis`).
//
//   QuantizeLinear:    y = clamp(round(x / scale) + zero_point, qmin, qmax)   (round: half to even)
//   DequantizeLinear:  y = (x - zero_point) * scale
//
// The output of QuantizeLinear has the zero point's type, uint8 without
// one. These run a quantized (QDQ) model as written: a float graph between
// its quantize and dequantize pairs, element by element. Folding the pairs
// around a convolution or a matrix product into an integer kernel is the
// layout of a later pass (docs/tensorize.md).
#include <functional>

#include "graph/operators/common.h"
#include "graph/operators/families.h"

namespace kiln::graph::operators {
namespace {

// The axis the scale runs along, made non-negative; checks the scale and
// zero point: a scalar (or one element), or one per element of that axis.
size_t quant_axis(const Graph& g, const Node& n, const Value& x) {
  if (n.attr_int("block_size", 0) != 0) not_yet(n, "blocked quantization (block_size)");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 1);
  const Value& scale = required_input(g, n, 1);
  if (scale.numel() == 1) return 0;  // per tensor: the axis is not read
  if (axis < -rank || axis >= rank)
    KILN_USER_ERROR() << n.describe() << ": axis " << axis << " is outside a rank-" << rank << " input";
  if (axis < 0) axis += rank;
  if (scale.shape.size() != 1 || scale.shape[0] != x.shape[static_cast<size_t>(axis)])
    KILN_USER_ERROR() << n.describe() << ": scale " << shape_str(scale.shape) << " is neither one value nor one per "
                      << "element of axis " << axis << " (" << x.shape[static_cast<size_t>(axis)] << ")";
  if (const Value* zp = g.input(n, 2); zp && zp->shape != scale.shape && zp->numel() != scale.numel())
    KILN_USER_ERROR() << n.describe() << ": zero point " << shape_str(zp->shape) << " does not match scale "
                      << shape_str(scale.shape);
  return static_cast<size_t>(axis);
}

bool is_quantized_type(DataType t) { return (t.is_int() || t.is_uint()) && t.bits() == 8; }

// A per-tensor or per-axis parameter at output index `i`.
Expr param_at(const te::Tensor& p, const std::vector<Var>& i, size_t axis) {
  if (p.shape().empty()) return p(std::vector<Expr>{});
  const int64_t* n = as_const_int(p.shape()[0]);
  return p(std::vector<Expr>{n && *n == 1 ? Expr(0) : Expr(i.at(axis))});
}

void quantize_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  const Value& scale = required_input(g, n, 1);
  if (scale.dtype != x.dtype)
    KILN_USER_ERROR() << n.describe() << ": scale of " << scale.dtype.str() << " for x of " << x.dtype.str();
  quant_axis(g, n, x);
  const Value* zp = g.input(n, 2);
  const DataType out = zp ? zp->dtype : DataType::UInt(8);
  if (!is_quantized_type(out)) not_yet(n, "quantizing to " + out.str() + " (int8 and uint8 only)");
  set_output(g, n, 0, out, x.shape);
}

// out[i] = f(x[i], scale at i, zero point at i or undefined): the compute
// definition both operators share.
using QuantFn = std::function<Expr(Expr x, Expr scale, Expr zero_point)>;
te::Tensor per_element(const Graph& g, const Node& n, const Tensors& in, const QuantFn& f, const std::string& name) {
  const size_t axis = quant_axis(g, n, required_input(g, n, 0));
  const bool has_zp = g.input(n, 2) != nullptr;
  return te::compute(
      in.at(0).shape(),
      [&](const std::vector<Var>& i) {
        return f(in.at(0)(std::vector<Expr>(i.begin(), i.end())), param_at(in.at(1), i, axis),
                 has_zp ? param_at(in.at(2), i, axis) : Expr());
      },
      name);
}

te::Tensor quantize(const Graph& g, const Node& n, const Tensors& in) {
  const DataType out = g.input(n, 2) ? in.at(2).dtype() : DataType::UInt(8);
  const DataType f = in.at(0).dtype();
  const double lo = out.is_uint() ? 0 : -128, hi = out.is_uint() ? 255 : 127;
  return per_element(
      g, n, in,
      [&](Expr x, Expr scale, Expr zp) {
        Expr q = call(Intrinsic::round, {x / scale});
        if (zp.defined()) q = q + cast(f, zp);
        return cast(out, min(max(q, make_const(f, lo)), make_const(f, hi)));
      },
      "quantize");
}

void dequantize_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (!is_quantized_type(x.dtype) && x.dtype != DataType::Int(32))
    not_yet(n, "dequantizing " + x.dtype.str() + " (int8, uint8 and int32 only)");
  const Value& scale = required_input(g, n, 1);
  if (!scale.dtype.is_float()) KILN_USER_ERROR() << n.describe() << ": scale of " << scale.dtype.str();
  if (const Value* zp = g.input(n, 2); zp && zp->dtype != x.dtype)
    KILN_USER_ERROR() << n.describe() << ": zero point of " << zp->dtype.str() << " for x of " << x.dtype.str();
  quant_axis(g, n, x);
  set_output(g, n, 0, scale.dtype, x.shape);
}

te::Tensor dequantize(const Graph& g, const Node& n, const Tensors& in) {
  const DataType f = in.at(1).dtype();
  return per_element(
      g, n, in,
      [&](Expr x, Expr scale, Expr zp) {
        // As ONNX's reference computes it: both in the scale's type, then
        // subtracted (an int32 above 2^24 rounds first).
        Expr v = cast(f, x);
        if (zp.defined()) v = v - cast(f, zp);
        return v * scale;
      },
      "dequantize");
}

}  // namespace

std::vector<OpDef> quantize_ops() {
  return {
      {"QuantizeLinear", "round(x / scale) + zero_point, saturated to int8 or uint8; per tensor or per axis",
       OpPattern::kElementwise, quantize_rule, one_output(quantize)},
      {"DequantizeLinear", "(x - zero_point) * scale; int8, uint8 or int32; per tensor or per axis",
       OpPattern::kElementwise, dequantize_rule, one_output(dequantize)},
  };
}

}  // namespace kiln::graph::operators
