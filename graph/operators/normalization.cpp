// The older normalizations of convolutional networks: LRN (AlexNet's local
// response normalization across channels) and MeanVarianceNormalization.
// (LayerNormalization, InstanceNormalization and Softmax are with the
// reductions, reduction.cpp.)
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/reduce_util.h"
#include "ops/broadcast.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

void lrn_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (x.shape.size() < 3) KILN_USER_ERROR() << n.describe() << ": input of shape " << shape_str(x.shape) << "; LRN takes [N, C, ...]";
  if (n.attr_int("size", 0) < 1) KILN_USER_ERROR() << n.describe() << ": size is " << n.attr_int("size", 0) << "; it is at least 1";
  same_as_input(n, g);
}

// y = x / (bias + alpha / size * the sum of x² over the channels
// c - (size-1)/2 to c + size/2 that exist)^beta.
te::Tensor lrn(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const int64_t size = n.attr_int("size", 1), channels = shape[1], below = (size - 1) / 2;
  IterVar r = te::reduce_axis(Range(i32(0), i32(size)), "r");
  const te::Tensor square_sum = te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        const Expr c = i[1] + r.var() - i32(below);
        std::vector<Expr> at(i.begin(), i.end());
        at[1] = max(i32(0), min(i32(channels - 1), c));  // clamped: a channel past the edge is not read
        const Expr v = x(at);
        return te::sum(select(logical_and(ge(c, i32(0)), lt(c, i32(channels))), v * v, make_zero(x.dtype())), {r});
      },
      "lrn_square_sum");
  const DataType t = x.dtype();
  const Expr scale = make_const(t, n.attr_float("alpha", 1e-4) / static_cast<double>(size));
  const Expr bias = make_const(t, n.attr_float("bias", 1.0)), beta = make_const(t, n.attr_float("beta", 0.75));
  return ops::map2(x, square_sum,
                   [&](Expr v, Expr s) { return div(v, call(Intrinsic::pow, {bias + scale * s, beta})); }, "lrn");
}

std::vector<bool> mvn_axes(const Node& n, int64_t rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : n.attr_ints("axes", {0, 2, 3})) reduced[static_cast<size_t>(shape_axis(n, a, rank))] = true;
  return reduced;
}

void mvn_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  mvn_axes(n, static_cast<int64_t>(x.shape.size()));
  same_as_input(n, g);
}

// (x - mean) / (sqrt(mean((x - mean)²)) + 1e-9) over `axes` (default
// [0, 2, 3]), ONNX's function body with its epsilon.
te::Tensor mvn(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const std::vector<bool> reduced = mvn_axes(n, static_cast<int64_t>(shape.size()));
  double count = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) count *= static_cast<double>(shape[d]);
  const DataType t = x.dtype();
  const Expr c = make_const(t, count);
  const te::Tensor mean = ops::map(reduce(x, shape, reduced, true, ReduceKind::kSum, identity, "mvn_sum"),
                                   [&](Expr v) { return div(v, c); }, "mvn_mean");
  const te::Tensor centered = ops::map2(x, mean, [](Expr v, Expr m) { return v - m; }, "mvn_centered");
  const te::Tensor var = ops::map(
      reduce(centered, shape, reduced, true, ReduceKind::kSum, [](Expr v) { return v * v; }, "mvn_square_sum"),
      [&](Expr v) { return div(v, c); }, "mvn_var");
  return ops::map2(centered, var,
                   [&](Expr v, Expr s) { return div(v, call(Intrinsic::sqrt, {s}) + make_const(t, 1e-9)); }, "mvn");
}

}  // namespace

std::vector<OpDef> normalization_ops() {
  return {
      {"LRN", "x / (bias + alpha / size * sum of x² over size channels)^beta", OpPattern::kReduction, lrn_rule,
       one_output(lrn)},
      {"MeanVarianceNormalization", "(x - mean) / std over axes (default [0, 2, 3])", OpPattern::kReduction, mvn_rule,
       one_output(mvn)},
  };
}

}  // namespace kiln::graph::operators
