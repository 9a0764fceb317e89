// Linear quantization: QuantizeLinear and DequantizeLinear, elementwise
// with a scale and a zero point per tensor or per channel (along `axis`),
// and DynamicQuantizeLinear, whose scale and zero point are its input's
// range.
//
//   QuantizeLinear:    y = clamp(round(x / scale) + zero_point, qmin, qmax)   (round: half to even)
//   DequantizeLinear:  y = (x - zero_point) * scale
//
// The output of QuantizeLinear has the zero point's type, uint8 without
// one. These run a quantized (QDQ) model as written: a float graph between
// its quantize and dequantize pairs, element by element, except where
// graph/fold_qdq.h folds the pairs around a convolution into a
// QLinearConv (graph/operators/qlinear.cpp).
#include <cmath>
#include <functional>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/quantize.h"

namespace kiln::graph::operators {

bool is_quantized_type(DataType t) { return (t.is_int() || t.is_uint()) && t.bits() == 8; }

Expr round_to_quantized(const Expr& v, const Expr& zero_point, DataType out) {
  const DataType f = v.dtype();
  Expr q = call(Intrinsic::round, {v});
  if (zero_point.defined()) q = q + cast(f, zero_point);
  const double lo = out.is_uint() ? 0 : -128, hi = out.is_uint() ? 255 : 127;
  return cast(out, min(max(q, make_const(f, lo)), make_const(f, hi)));
}

Expr param_at(const te::Tensor& p, const Expr& k) {
  if (p.shape().empty()) return p(std::vector<Expr>{});
  const int64_t* len = as_const_int(p.shape()[0]);
  return p(std::vector<Expr>{len && *len == 1 ? Expr(0) : k});
}

bool holds_7_bits(const Value& v) {
  if (!v.is_constant()) return false;
  for (int64_t i = 0; i < v.data->numel(); ++i)
    if (std::abs(v.data->get(i)) > 64) return false;
  return true;
}

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
        return f(in.at(0)(std::vector<Expr>(i.begin(), i.end())), param_at(in.at(1), i.at(axis)),
                 has_zp ? param_at(in.at(2), i.at(axis)) : Expr());
      },
      name);
}

te::Tensor quantize(const Graph& g, const Node& n, const Tensors& in) {
  const DataType out = g.input(n, 2) ? in.at(2).dtype() : DataType::UInt(8);
  return per_element(
      g, n, in, [&](Expr x, Expr scale, Expr zp) { return round_to_quantized(x / scale, zp, out); }, "quantize");
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


// DynamicQuantizeLinear: x to uint8 with a scale and zero point of its own
// range (0 always inside it), computed as it runs:
//   scale = (max(0, max x) - min(0, min x)) / 255
//   zero_point = saturate(round(-min(0, min x) / scale))
//   y = saturate(round(x / scale) + zero_point)
// A dynamically quantized transformer quantizes each product's input so.
void dynamic_quantize_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (x.dtype != DataType::Float32()) KILN_USER_ERROR() << n.describe() << ": x of " << x.dtype.str() << ", not float32";
  set_output(g, n, 0, DataType::UInt(8), x.shape);
  set_output(g, n, 1, DataType::Float32(), {});
  set_output(g, n, 2, DataType::UInt(8), {});
}

std::vector<te::Tensor> dynamic_quantize(const Graph&, const Node&, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const DataType f = x.dtype();
  auto whole = [&](bool largest) {
    std::vector<IterVar> axes;
    for (size_t a = 0; a < x.shape().size(); ++a)
      axes.push_back(te::reduce_axis(Range(make_const(DataType::Int(32), 0), x.shape()[a]), "r" + std::to_string(a)));
    return te::compute(
        {},
        [&](const std::vector<Var>&) {
          std::vector<Expr> at;
          for (const IterVar& a : axes) at.push_back(a.var());
          return largest ? te::max_reduce(x(at), axes) : te::min_reduce(x(at), axes);
        },
        largest ? "range_max" : "range_min");
  };
  const te::Tensor hi = whole(true), lo = whole(false);
  const Expr zero = make_zero(f);
  const te::Tensor scale = te::compute(
      {}, [&](const std::vector<Var>&) { return (max(hi({}), zero) - min(lo({}), zero)) / make_const(f, 255); },
      "scale");
  const te::Tensor zp = te::compute(
      {}, [&](const std::vector<Var>&) { return round_to_quantized((zero - min(lo({}), zero)) / scale({}), Expr(), DataType::UInt(8)); },
      "zero_point");
  const te::Tensor y = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return round_to_quantized(x(std::vector<Expr>(i.begin(), i.end())) / scale({}), zp({}), DataType::UInt(8));
      },
      "quantize");
  return {y, scale, zp};
}

}  // namespace

std::vector<OpDef> quantize_ops() {
  return {
      {"QuantizeLinear", "round(x / scale) + zero_point, saturated to int8 or uint8; per tensor or per axis",
       OpPattern::kElementwise, quantize_rule, one_output(quantize)},
      {"DequantizeLinear", "(x - zero_point) * scale; int8, uint8 or int32; per tensor or per axis",
       OpPattern::kElementwise, dequantize_rule, one_output(dequantize)},
      {"DynamicQuantizeLinear", "x to uint8 with the scale and zero point of its range, computed as it runs",
       OpPattern::kReduction, dynamic_quantize_rule, dynamic_quantize},
  };
}

}  // namespace kiln::graph::operators
