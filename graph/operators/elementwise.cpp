// Elementwise operators: each output element from the same element of
// each input, numpy broadcasting across inputs. Activations and math
// functions, arithmetic, comparisons and logic, Where, Cast, the variadic
// Min, Max, Sum and Mean, Clip, and the inference forms of Identity and
// Dropout.
//
// Most are one expression of their operands. Those are written as a row
// of a table (name, summary, the dtypes it takes, the expression), and
// one rule and one compute definition serve every row; the rest (Clip's
// bounds, Cast's target, Dropout's mask) have their own.
#include <limits>
#include <map>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/recognize.h"
#include "graph/onnx_import.h"
#include "ops/broadcast.h"

namespace kiln::graph::operators {
namespace {

// Which element types an operator takes.
enum class Takes {
  kFloat,    // floating point
  kSigned,   // floating point and signed integers
  kNumeric,  // any number, not bool
  kUnsigned,  // unsigned integers
  kBool,     // bool only
  kAny,      // any type kiln computes in
};

void require_takes(const Node& n, const Value& v, Takes takes) {
  const DataType t = v.dtype;
  bool ok = true;
  const char* what = "";
  switch (takes) {
    case Takes::kFloat: ok = t.is_float(), what = "floating-point"; break;
    case Takes::kSigned: ok = t.is_float() || t.is_int(), what = "floating-point or signed integer"; break;
    case Takes::kNumeric: ok = !t.is_bool(), what = "numeric"; break;
    case Takes::kUnsigned: ok = t.is_uint(), what = "unsigned integer"; break;
    case Takes::kBool: ok = t.is_bool(), what = "bool"; break;
    case Takes::kAny: break;
  }
  if (!ok)
    KILN_UNSUPPORTED() << n.describe() << ": input '" << v.name << "' is " << t.str() << "; it takes " << what
                      << " tensors";
}

// The expression of an elementwise operator: its operands (broadcast),
// the node for attributes.
using ExprFn = std::function<Expr(const Node& n, const std::vector<Expr>& x)>;

struct Elementwise {
  const char* name;
  const char* summary;
  Takes takes;
  ExprFn f;
  bool to_bool = false;  // the output is bool (comparisons, IsNaN)
  int arity = 1;         // operands; 0 for variadic (Sum, Max, ...)
};

Expr constant_like(const Expr& x, double v) { return make_const(x.dtype(), v); }

double attr(const Node& n, const char* key, double fallback) { return n.attr_float(key, fallback); }

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The operators of one expression. Defaults of attributes are ONNX's.
const std::vector<Elementwise>& elementwise_table() {
  using X = const std::vector<Expr>&;
  auto fn = [](Intrinsic f) { return [f](const Node&, X x) { return call(f, {x[0]}); }; };
  static const std::vector<Elementwise> table = {
      // Activations.
      {"Relu", "max(x, 0)", Takes::kSigned, [](const Node&, X x) { return max(x[0], constant_like(x[0], 0)); }},
      {"Sigmoid", "1 / (1 + exp(-x))", Takes::kFloat, fn(Intrinsic::sigmoid)},
      {"Tanh", "tanh(x)", Takes::kFloat, fn(Intrinsic::tanh)},
      {"LeakyRelu", "x < 0 ? alpha * x : x (alpha 0.01)", Takes::kFloat,
       [](const Node& n, X x) {
         return select(lt(x[0], constant_like(x[0], 0)), x[0] * constant_like(x[0], attr(n, "alpha", 0.01)), x[0]);
       }},
      {"PRelu", "x < 0 ? slope * x : x, slope broadcast", Takes::kSigned,
       [](const Node&, X x) { return select(lt(x[0], constant_like(x[0], 0)), x[0] * x[1], x[0]); }, false, 2},
      {"Elu", "x < 0 ? alpha * (exp(x) - 1) : x (alpha 1)", Takes::kFloat,
       [](const Node& n, X x) {
         const Expr e = constant_like(x[0], attr(n, "alpha", 1.0)) * (call(Intrinsic::exp, {x[0]}) - constant_like(x[0], 1));
         return select(lt(x[0], constant_like(x[0], 0)), e, x[0]);
       }},
      {"Selu", "gamma * (x <= 0 ? alpha * exp(x) - alpha : x)", Takes::kFloat,
       [](const Node& n, X x) {
         const Expr alpha = constant_like(x[0], attr(n, "alpha", 1.67326319217681884765625));
         const Expr gamma = constant_like(x[0], attr(n, "gamma", 1.05070102214813232421875));
         return gamma * select(le(x[0], constant_like(x[0], 0)), alpha * call(Intrinsic::exp, {x[0]}) - alpha, x[0]);
       }},
      {"Celu", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (alpha 1)", Takes::kFloat,
       [](const Node& n, X x) {
         const Expr alpha = constant_like(x[0], attr(n, "alpha", 1.0)), zero = constant_like(x[0], 0);
         return max(zero, x[0]) +
                min(zero, alpha * (call(Intrinsic::exp, {div(x[0], alpha)}) - constant_like(x[0], 1)));
       }},
      {"HardSigmoid", "max(0, min(1, alpha * x + beta)) (alpha 0.2, beta 0.5)", Takes::kFloat,
       [](const Node& n, X x) {
         const Expr y = constant_like(x[0], attr(n, "alpha", 0.2)) * x[0] + constant_like(x[0], attr(n, "beta", 0.5));
         return max(constant_like(x[0], 0), min(constant_like(x[0], 1), y));
       }},
      {"HardSwish", "x * max(0, min(1, x / 6 + 1 / 2))", Takes::kFloat,
       [](const Node&, X x) {
         const Expr y = x[0] * constant_like(x[0], 1.0 / 6) + constant_like(x[0], 0.5);
         return x[0] * max(constant_like(x[0], 0), min(constant_like(x[0], 1), y));
       }},
      {kSiLU, "x * sigmoid(x) (graph/recognize.h)", Takes::kFloat,
       [](const Node&, X x) { return x[0] * call(Intrinsic::sigmoid, {x[0]}); }},
      {"Softplus", "log(exp(x) + 1)", Takes::kFloat,
       [](const Node&, X x) { return call(Intrinsic::log, {call(Intrinsic::exp, {x[0]}) + constant_like(x[0], 1)}); }},
      {"Gelu", "x * (1 + erf(x / sqrt(2))) / 2; approximate=\"tanh\": its tanh form (opset 20)",
       Takes::kFloat,
       [](const Node& n, X x) {
         const Expr half = constant_like(x[0], 0.5), one = constant_like(x[0], 1);
         const std::string approximate = n.attr_string("approximate", "none");
         if (approximate == "tanh") {
           const Expr inner = constant_like(x[0], 0.7978845608028654) *
                              (x[0] + constant_like(x[0], 0.044715) * x[0] * x[0] * x[0]);
           return half * x[0] * (one + call(Intrinsic::tanh, {inner}));
         }
         if (approximate != "none")
           KILN_USER_ERROR() << n.describe() << ": approximate is \"" << approximate << "\"; it is \"none\" or \"tanh\"";
         return half * x[0] * (one + call(Intrinsic::erf, {x[0] * constant_like(x[0], 0.7071067811865476)}));
       }},
      {"Softsign", "x / (1 + |x|)", Takes::kFloat,
       [](const Node&, X x) { return div(x[0], constant_like(x[0], 1) + call(Intrinsic::abs, {x[0]})); }},
      {"ThresholdedRelu", "x > alpha ? x : 0 (alpha 1)", Takes::kFloat,
       [](const Node& n, X x) {
         return select(gt(x[0], constant_like(x[0], attr(n, "alpha", 1.0))), x[0], constant_like(x[0], 0));
       }},
      {"Shrink", "x < -lambd ? x + bias : x > lambd ? x - bias : 0 (bias 0, lambd 0.5)", Takes::kNumeric,
       [](const Node& n, X x) {
         const double lambd = attr(n, "lambd", 0.5), bias = attr(n, "bias", 0.0);
         // In double, then cast: the bounds and bias of an integer input are fractions.
         const DataType f = DataType::Float(64);
         const Expr v = cast(f, x[0]);
         const Expr y = select(lt(v, make_const(f, -lambd)), v + make_const(f, bias),
                               select(gt(v, make_const(f, lambd)), v - make_const(f, bias), make_const(f, 0)));
         return cast(x[0].dtype(), y);
       }},
      // Math functions.
      {"Abs", "|x|", Takes::kNumeric, fn(Intrinsic::abs)},
      {"Neg", "-x", Takes::kSigned, [](const Node&, X x) { return constant_like(x[0], 0) - x[0]; }},
      {"Sign", "-1, 0 or 1", Takes::kNumeric,
       [](const Node&, X x) {
         const Expr zero = constant_like(x[0], 0);
         return select(gt(x[0], zero), constant_like(x[0], 1),
                       x[0].dtype().is_uint() ? zero : select(lt(x[0], zero), constant_like(x[0], -1), zero));
       }},
      {"Reciprocal", "1 / x", Takes::kFloat, [](const Node&, X x) { return div(constant_like(x[0], 1), x[0]); }},
      {"Sqrt", "sqrt(x)", Takes::kFloat, fn(Intrinsic::sqrt)},
      {"Exp", "e^x", Takes::kFloat, fn(Intrinsic::exp)},
      {"Log", "the natural logarithm", Takes::kFloat, fn(Intrinsic::log)},
      {"Erf", "the error function", Takes::kFloat, fn(Intrinsic::erf)},
      {"Floor", "rounded down", Takes::kFloat, fn(Intrinsic::floor)},
      {"Ceil", "rounded up", Takes::kFloat, fn(Intrinsic::ceil)},
      {"Round", "rounded to the nearest, ties to even", Takes::kFloat, fn(Intrinsic::round)},
      {"Sin", "sin(x)", Takes::kFloat, fn(Intrinsic::sin)},
      {"Cos", "cos(x)", Takes::kFloat, fn(Intrinsic::cos)},
      {"Tan", "tan(x)", Takes::kFloat, fn(Intrinsic::tan)},
      {"Asin", "asin(x)", Takes::kFloat, fn(Intrinsic::asin)},
      {"Acos", "acos(x)", Takes::kFloat, fn(Intrinsic::acos)},
      {"Atan", "atan(x)", Takes::kFloat, fn(Intrinsic::atan)},
      {"Sinh", "sinh(x)", Takes::kFloat, fn(Intrinsic::sinh)},
      {"Cosh", "cosh(x)", Takes::kFloat, fn(Intrinsic::cosh)},
      {"Asinh", "asinh(x)", Takes::kFloat, fn(Intrinsic::asinh)},
      {"Acosh", "acosh(x)", Takes::kFloat, fn(Intrinsic::acosh)},
      {"Atanh", "atanh(x)", Takes::kFloat, fn(Intrinsic::atanh)},
      {"IsNaN", "x != x", Takes::kFloat, [](const Node&, X x) { return ne(x[0], x[0]); }, true},
      {"IsInf", "|x| is infinite (detect_negative, detect_positive)", Takes::kFloat,
       [](const Node& n, X x) {
         const Expr inf = make_const(x[0].dtype(), std::numeric_limits<double>::infinity());
         const bool neg = n.attr_int("detect_negative", 1) != 0, pos = n.attr_int("detect_positive", 1) != 0;
         Expr r = make_const(DataType::Bool(), 0);
         if (pos) r = eq(x[0], inf);
         if (neg) r = pos ? logical_or(r, eq(x[0], constant_like(x[0], 0) - inf)) : eq(x[0], constant_like(x[0], 0) - inf);
         return r;
       },
       true},
      {"Identity", "x", Takes::kAny, [](const Node&, X x) { return x[0]; }},
      // Arithmetic, broadcast.
      {"Add", "a + b, broadcast", Takes::kNumeric, [](const Node&, X x) { return x[0] + x[1]; }, false, 2},
      {"Sub", "a - b, broadcast", Takes::kNumeric, [](const Node&, X x) { return x[0] - x[1]; }, false, 2},
      {"Mul", "a * b, broadcast", Takes::kNumeric, [](const Node&, X x) { return x[0] * x[1]; }, false, 2},
      {"Div", "a / b, broadcast (integers truncate)", Takes::kNumeric, [](const Node&, X x) { return div(x[0], x[1]); },
       false, 2},
      {"Mod", "a mod b with the divisor's sign, or with fmod the dividend's", Takes::kNumeric,
       [](const Node& n, X x) {
         if (n.attr_int("fmod", 0) != 0 || x[0].dtype().is_uint()) return mod(x[0], x[1]);
         // The divisor's sign: the truncated remainder moved by b when
         // the signs differ and it is not 0.
         const Expr r = mod(x[0], x[1]), zero = constant_like(x[0], 0);
         const Expr differ = logical_and(ne(r, zero), ne(lt(r, zero), lt(x[1], zero)));
         return select(differ, r + x[1], r);
       },
       false, 2},
      // x << y is x * 2^y, x >> y is x / 2^y (unsigned, so truncating is
      // flooring): 2^y is exact in double for every shift of a 64-bit
      // value, and the product wraps as the shift would.
      {"BitShift", "x << y or x >> y (direction LEFT or RIGHT), unsigned integers, broadcast", Takes::kUnsigned,
       [](const Node& n, X x) {
         const std::string direction = n.attr_string("direction", "");
         if (direction != "LEFT" && direction != "RIGHT")
           KILN_USER_ERROR() << n.describe() << ": direction is \"" << direction << "\"; it is \"LEFT\" or \"RIGHT\"";
         const DataType f64 = DataType::Float(64);
         const Expr power = cast(x[0].dtype(), call(Intrinsic::pow, {make_const(f64, 2), cast(f64, x[1])}));
         return direction == "LEFT" ? x[0] * power : div(x[0], power);
       },
       false, 2},
      // Comparisons and logic.
      {"Equal", "a == b, broadcast", Takes::kAny, [](const Node&, X x) { return eq(x[0], x[1]); }, true, 2},
      {"Less", "a < b, broadcast", Takes::kNumeric, [](const Node&, X x) { return lt(x[0], x[1]); }, true, 2},
      {"LessOrEqual", "a <= b, broadcast", Takes::kNumeric, [](const Node&, X x) { return le(x[0], x[1]); }, true, 2},
      {"Greater", "a > b, broadcast", Takes::kNumeric, [](const Node&, X x) { return gt(x[0], x[1]); }, true, 2},
      {"GreaterOrEqual", "a >= b, broadcast", Takes::kNumeric, [](const Node&, X x) { return ge(x[0], x[1]); }, true,
       2},
      {"Not", "!x", Takes::kBool, [](const Node&, X x) { return logical_not(x[0]); }},
      {"And", "a && b, broadcast", Takes::kBool, [](const Node&, X x) { return logical_and(x[0], x[1]); }, false, 2},
      {"Or", "a || b, broadcast", Takes::kBool, [](const Node&, X x) { return logical_or(x[0], x[1]); }, false, 2},
      {"Xor", "a != b, broadcast", Takes::kBool, [](const Node&, X x) { return ne(x[0], x[1]); }, false, 2},
      // Variadic, broadcast across all inputs.
      {"Sum", "the sum of the inputs, broadcast", Takes::kNumeric,
       [](const Node&, X x) {
         Expr r = x[0];
         for (size_t i = 1; i < x.size(); ++i) r = r + x[i];
         return r;
       },
       false, 0},
      {"Mean", "the mean of the inputs, broadcast", Takes::kFloat,
       [](const Node&, X x) {
         Expr r = x[0];
         for (size_t i = 1; i < x.size(); ++i) r = r + x[i];
         return div(r, constant_like(x[0], static_cast<double>(x.size())));
       },
       false, 0},
      {"Max", "the largest of the inputs, broadcast", Takes::kNumeric,
       [](const Node&, X x) {
         Expr r = x[0];
         for (size_t i = 1; i < x.size(); ++i) r = max(r, x[i]);
         return r;
       },
       false, 0},
      {"Min", "the smallest of the inputs, broadcast", Takes::kNumeric,
       [](const Node&, X x) {
         Expr r = x[0];
         for (size_t i = 1; i < x.size(); ++i) r = min(r, x[i]);
         return r;
       },
       false, 0},
  };
  return table;
}

const Elementwise& entry(const Node& n) {
  static const std::map<std::string, const Elementwise*> by_name = [] {
    std::map<std::string, const Elementwise*> m;
    for (const Elementwise& e : elementwise_table()) m[e.name] = &e;
    return m;
  }();
  return *by_name.at(n.op);
}

// The rule every row shares: the operands take the row's types and one
// type (PRelu's slope broadcasts to x alone), the output is their
// broadcast shape.
void elementwise_rule(const Node& n, Graph& g) {
  const Elementwise& e = entry(n);
  const size_t count = e.arity ? static_cast<size_t>(e.arity) : n.inputs.size();
  if (count == 0) KILN_USER_ERROR() << n.describe() << ": no inputs";
  const Value& first = required_input(g, n, 0);
  require_takes(n, first, e.takes);
  Shape shape = first.shape;
  for (size_t i = 1; i < count; ++i) {
    const Value& v = required_input(g, n, i);
    if (v.dtype != first.dtype)
      KILN_USER_ERROR() << n.describe() << ": inputs of " << first.dtype.str() << " and " << v.dtype.str();
    shape = broadcast_shapes(n, shape, v.shape);
  }
  if (n.op == "PRelu" && shape != first.shape)
    KILN_USER_ERROR() << n.describe() << ": slope " << shape_str(required_input(g, n, 1).shape)
                      << " does not broadcast to x " << shape_str(first.shape);
  set_output(g, n, 0, e.to_bool ? DataType::Bool() : first.dtype, shape);
}

te::Tensor elementwise(const Graph&, const Node& n, const Tensors& in) {
  const Elementwise& e = entry(n);
  const size_t count = e.arity ? static_cast<size_t>(e.arity) : in.size();
  const Tensors operands(in.begin(), in.begin() + static_cast<int64_t>(count));
  return ops::map_n(operands, [&](const std::vector<Expr>& x) { return e.f(n, x); }, lower_case(n.op));
}

// Pow: the exponent may be of another type than the base.
void pow_rule(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 1);
  require_takes(n, a, Takes::kNumeric);
  require_takes(n, b, Takes::kNumeric);
  set_output(g, n, 0, a.dtype, broadcast_shapes(n, a.shape, b.shape));
}

te::Tensor pow(const Graph&, const Node&, const Tensors& in) {
  const DataType t = in.at(0).dtype();
  if (!t.is_float()) {  // integer powers through float64, exact while they fit its mantissa
    const DataType f = DataType::Float(64);
    return ops::map2(
        in[0], in[1], [&](Expr x, Expr y) { return cast(t, call(Intrinsic::pow, {cast(f, x), cast(f, y)})); }, "pow");
  }
  return ops::map2(in[0], in[1], [&](Expr x, Expr y) { return call(Intrinsic::pow, {x, cast(t, y)}); }, "pow");
}

// Where(condition, x, y): x where the condition holds, else y; broadcast.
void where_rule(const Node& n, Graph& g) {
  const Value& c = required_input(g, n, 0);
  const Value& x = required_input(g, n, 1);
  const Value& y = required_input(g, n, 2);
  require_takes(n, c, Takes::kBool);
  if (x.dtype != y.dtype) KILN_USER_ERROR() << n.describe() << ": x of " << x.dtype.str() << ", y of " << y.dtype.str();
  set_output(g, n, 0, x.dtype, broadcast_shapes(n, broadcast_shapes(n, c.shape, x.shape), y.shape));
}

te::Tensor where(const Graph&, const Node&, const Tensors& in) {
  return ops::map_n({in.at(0), in.at(1), in.at(2)}, [](const std::vector<Expr>& v) { return select(v[0], v[1], v[2]); },
                    "where");
}

// Cast to the type `to` names (CastLike: to input 1's type). A float to an
// integer truncates toward zero; to bool, nonzero is true.
// `to` is an ONNX element type code (TensorProto.DataType).
DataType cast_target(const Graph& g, const Node& n) {
  if (n.op == "CastLike") return required_input(g, n, 1).dtype;
  if (!n.has_attr("to")) KILN_USER_ERROR() << n.describe() << ": no 'to' attribute";
  return onnx_element_type(n.attr_int("to", 0), n.describe() + ": the cast's target");
}

void cast_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  set_output(g, n, 0, cast_target(g, n), x.shape);
}

te::Tensor cast_op(const Graph& g, const Node& n, const Tensors& in) {
  const DataType to = cast_target(g, n);
  return ops::map(
      in.at(0),
      [&](Expr v) { return to.is_bool() ? ne(v, make_zero(v.dtype())) : cast(to, v); }, "cast");
}

void clip_rule(const Node& n, Graph& g) {
  require_takes(n, required_input(g, n, 0), Takes::kNumeric);
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
  std::vector<OpDef> ops;
  const LowerFn lower = one_output(elementwise);
  for (const Elementwise& e : elementwise_table())
    ops.push_back({e.name, e.summary, OpPattern::kElementwise, elementwise_rule, lower});
  const std::vector<OpDef> own = {
      {"Pow", "a ^ b, broadcast", OpPattern::kElementwise, pow_rule, one_output(pow)},
      {"Where", "x where condition else y, broadcast", OpPattern::kElementwise, where_rule, one_output(where)},
      {"Cast", "to the element type `to` (floats truncate toward zero)", OpPattern::kElementwise, cast_rule,
       one_output(cast_op)},
      {"CastLike", "to the element type of input 1", OpPattern::kElementwise, cast_rule, one_output(cast_op)},
      {"Clip", "min(max(x, min), max); bounds as attributes (opset < 11) or inputs", OpPattern::kElementwise,
       clip_rule, one_output(clip), 1},
      {"Dropout", "x (inference)", OpPattern::kElementwise, dropout_rule, dropout, 1},
  };
  ops.insert(ops.end(), own.begin(), own.end());
  return ops;
}

}  // namespace kiln::graph::operators
