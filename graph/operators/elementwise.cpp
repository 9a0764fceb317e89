// Elementwise operators: activations, arithmetic with numpy broadcasting,
// Clip, and the inference forms of Identity and Dropout.
#include <map>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/broadcast.h"
#include "ops/elementwise.h"

namespace kiln::graph::operators {
namespace {

void unary_float(const Node& n, Graph& g) {
  require_float(n, required_input(g, n, 0));
  same_as_input(n, g);
}

// A unary elementwise operator: one stage named after the op, lower case.
te::Tensor unary(const Graph&, const Node& n, const Tensors& in) {
  static const std::map<std::string, Intrinsic> calls = {
      {"Sigmoid", Intrinsic::sigmoid}, {"Tanh", Intrinsic::tanh}, {"Erf", Intrinsic::erf}, {"Sqrt", Intrinsic::sqrt}};
  const te::Tensor& x = in.at(0);
  if (n.op == "Relu") return ops::map(x, [&](Expr v) { return max(v, make_zero(x.dtype())); }, "relu");
  if (n.op == "Identity" || n.op == "Dropout") return ops::map(x, [](Expr v) { return v; }, "identity");
  const Intrinsic f = calls.at(n.op);
  std::string name = n.op;
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return ops::map(x, [&](Expr v) { return call(f, {v}); }, name);
}

void binary_broadcast(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 1);
  // Pow's exponent may be of another type; the others take one type.
  if (n.op != "Pow" && a.dtype != b.dtype)
    KILN_USER_ERROR() << n.describe() << ": inputs of " << a.dtype.str() << " and " << b.dtype.str();
  set_output(g, n, 0, a.dtype, broadcast_shapes(n, a.shape, b.shape));
}

te::Tensor binary(const Graph&, const Node& n, const Tensors& in) {
  const te::Tensor &a = in.at(0), &b = in.at(1);
  if (n.op == "Add") return ops::map2(a, b, [](Expr x, Expr y) { return x + y; }, "add");
  if (n.op == "Sub") return ops::map2(a, b, [](Expr x, Expr y) { return x - y; }, "sub");
  if (n.op == "Mul") return ops::map2(a, b, [](Expr x, Expr y) { return x * y; }, "mul");
  if (n.op == "Div") return ops::map2(a, b, [](Expr x, Expr y) { return div(x, y); }, "div");
  const DataType t = a.dtype();
  if (!t.is_float()) {  // integer powers through float64, exact while they fit its mantissa
    const DataType f = DataType::Float(64);
    return ops::map2(
        a, b, [&](Expr x, Expr y) { return cast(t, call(Intrinsic::pow, {cast(f, x), cast(f, y)})); }, "pow");
  }
  return ops::map2(a, b, [&](Expr x, Expr y) { return call(Intrinsic::pow, {x, cast(t, y)}); }, "pow");
}

void clip_rule(const Node& n, Graph& g) {
  for (size_t i = 1; i < 3; ++i)
    if (const Value* bound = g.input(n, i); bound && !bound->shape.empty() && bound->numel() != 1)
      KILN_USER_ERROR() << n.describe() << ": its bounds must be scalars";
  same_as_input(n, g);
}

te::Tensor clip(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const DataType t = x.dtype();
  std::optional<double> lo, hi;
  if (n.has_attr("min")) lo = n.attr_float("min", 0);
  if (n.has_attr("max")) hi = n.attr_float("max", 0);
  for (size_t i : {size_t{1}, size_t{2}}) {
    const Value* v = g.input(n, i);
    if (!v) continue;
    if (!v->is_constant()) not_yet(n, "a bound that is not a constant");
    (i == 1 ? lo : hi) = v->data->get(0);
  }
  return ops::map(
      x,
      [&](Expr v) {
        if (hi) v = min(v, make_const(t, *hi));
        if (lo) v = max(v, make_const(t, *lo));
        return v;
      },
      "clip");
}

void dropout_rule(const Node& n, Graph& g) {
  const Value* training = g.input(n, 2);
  if (training && (!training->is_constant() || training->data->get(0) != 0))
    KILN_UNSUPPORTED() << n.describe() << ": training mode is not supported (inference only)";
  same_as_input(n, g);
  if (n.outputs.size() > 1 && n.outputs[1] != Node::kNone)
    set_output(g, n, 1, DataType::Bool(), required_input(g, n, 0).shape);
}

// Inference: everything kept, the mask (when asked for) all true.
Tensors dropout(const Graph&, const Node& n, const Tensors& in) {
  const te::Tensor kept = ops::map(in.at(0), [](Expr v) { return v; }, "identity");
  if (n.outputs.size() < 2 || n.outputs[1] == Node::kNone) return {kept};
  const te::Tensor mask = ops::map(in.at(0), [](Expr) { return make_const(DataType::Bool(), 1); }, "dropout_mask");
  return {kept, mask};
}

}  // namespace

std::vector<OpDef> elementwise_ops() {
  const LowerFn lower_unary = one_output(unary), lower_binary = one_output(binary);
  return {
      {"Relu", "max(x, 0)", OpPattern::kElementwise, unary_float, lower_unary},
      {"Clip", "min(max(x, min), max); bounds as attributes (opset < 11) or inputs", OpPattern::kElementwise,
       clip_rule, one_output(clip), 1},
      {"Sigmoid", "1 / (1 + exp(-x))", OpPattern::kElementwise, unary_float, lower_unary},
      {"Tanh", "tanh(x)", OpPattern::kElementwise, unary_float, lower_unary},
      {"Erf", "the error function", OpPattern::kElementwise, unary_float, lower_unary},
      {"Sqrt", "sqrt(x)", OpPattern::kElementwise, unary_float, lower_unary},
      {"Add", "a + b, broadcast", OpPattern::kElementwise, binary_broadcast, lower_binary},
      {"Sub", "a - b, broadcast", OpPattern::kElementwise, binary_broadcast, lower_binary},
      {"Mul", "a * b, broadcast", OpPattern::kElementwise, binary_broadcast, lower_binary},
      {"Div", "a / b, broadcast", OpPattern::kElementwise, binary_broadcast, lower_binary},
      {"Pow", "a ^ b, broadcast", OpPattern::kElementwise, binary_broadcast, lower_binary},
      {"Identity", "x", OpPattern::kElementwise, same_as_input, lower_unary},
      {"Dropout", "x (inference)", OpPattern::kElementwise, dropout_rule, dropout, 1},
  };
}

}  // namespace kiln::graph::operators
