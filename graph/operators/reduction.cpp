// Reductions and normalizations: the ReduceX operators, ArgMax and ArgMin,
// the global pools, Softmax, LogSoftmax and Hardmax, LayerNormalization
// and InstanceNormalization, CumSum. Fusion treats each as a reduction: the
// elementwise nodes after it join its group.
#include <algorithm>
#include <numeric>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/reduce_util.h"
#include "ops/broadcast.h"
#include "ops/common.h"
#include "ops/layer_norm.h"
#include "ops/softmax.h"
#include "ops/transform.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

void softmax_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  normalized_axis(n, n.attr_int("axis", g.opset >= 13 ? -1 : 1), static_cast<int64_t>(x.shape.size()));
  same_as_input(n, g);
}

// Softmax over the axes from `axis` on, as one axis: before opset 13 the
// input is read as a matrix around `axis`; since, `axis` alone.
te::Tensor softmax(const Graph& g, const Node& n, const Tensors& inputs) {
  const te::Tensor& x = inputs.at(0);
  const Shape& in = required_input(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = normalized_axis(n, n.attr_int("axis", g.opset >= 13 ? -1 : 1), rank);
  if (g.opset >= 13 && axis != rank - 1) {
    // Moved last, normalised, moved back.
    Shape perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[static_cast<size_t>(axis)], perm.back());
    te::Tensor last = ops::transpose(x, perm);
    Shape moved;
    for (int64_t p : perm) moved.push_back(in[static_cast<size_t>(p)]);
    const int64_t cols = moved.back();
    const int64_t rows = product(moved, 0, moved.size() - 1);
    te::Tensor s = ops::softmax(ops::reshape(last, {rows, cols}));
    return ops::transpose(ops::reshape(s, moved), perm);
  }
  const int64_t rows = product(in, 0, static_cast<size_t>(axis));
  const int64_t cols = product(in, static_cast<size_t>(axis));
  if (rank == 2 && axis == 1) return ops::softmax(x);
  return ops::reshape(ops::softmax(ops::reshape(x, {rows, cols})), in);
}

void layer_norm_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normalized_axis(n, n.attr_int("axis", -1), rank);
  const Shape normalized(x.shape.begin() + axis, x.shape.end());
  for (size_t i = 1; i < 3; ++i)
    if (const Value* p = g.input(n, i)) broadcast_shapes(n, normalized, p->shape);
  same_as_input(n, g);
  Shape stats = x.shape;
  std::fill(stats.begin() + axis, stats.end(), 1);
  for (size_t i = 1; i < 3; ++i) set_output(g, n, i, DataType::Float32(), stats);
}

// LayerNormalization: the matrix form of ops/ over the axes from `axis`
// on, and the Mean and InvStdDev outputs (normalized axes of extent 1).
Tensors layer_norm(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const int64_t axis = normalized_axis(n, n.attr_int("axis", -1), static_cast<int64_t>(shape.size()));
  const int64_t rows = product(shape, 0, static_cast<size_t>(axis));
  const int64_t cols = product(shape, static_cast<size_t>(axis));
  auto param = [&](size_t i) {
    const Value* v = g.input(n, i);
    if (!v) not_yet(n, "a LayerNormalization without Scale or B");
    if (v->numel() != cols) not_yet(n, "a Scale or B broadcast over the normalized axes");
    return ops::reshape(in[i], {cols}, i == 1 ? "ln_scale" : "ln_bias");
  };
  if (in[0].dtype() != DataType::Float32()) not_yet(n, "a LayerNormalization of " + in[0].dtype().str());
  const ops::LayerNormParts p =
      ops::layer_norm_parts(ops::reshape(in[0], {rows, cols}), param(1), param(2), n.attr_float("epsilon", 1e-5));
  Shape stats = shape;
  std::fill(stats.begin() + axis, stats.end(), 1);
  Tensors outs = {ops::reshape(p.out, shape), ops::reshape(p.mean, stats, "ln_mean_out"),
                  ops::reshape(p.rstd, stats, "ln_rstd_out")};
  outs.resize(std::min(outs.size(), n.outputs.size()));
  return outs;
}

// The axes a reduction node reduces: ReduceX's `axes` attribute (an input
// for ReduceSum since opset 13), every axis when none are given (unless
// noop_with_empty_axes), or ArgMax's one `axis`.
std::vector<bool> reduced_axes(const Graph& g, const Node& n, int64_t rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (n.op == "ArgMax" || n.op == "ArgMin") {
    reduced[static_cast<size_t>(shape_axis(n, n.attr_int("axis", 0), rank))] = true;
    return reduced;
  }
  Shape axes = n.attr_ints("axes", {});
  if (!n.has_attr("axes") && g.input(n, 1)) axes = constant_ints(g, n, 1, "axes");
  if (axes.empty()) {
    if (n.attr_int("noop_with_empty_axes", 0) == 0) reduced.assign(reduced.size(), true);
    return reduced;
  }
  for (int64_t a : axes) {
    const size_t d = static_cast<size_t>(shape_axis(n, a, rank));
    if (reduced[d]) KILN_USER_ERROR() << n.describe() << ": axis " << a << " is given twice";
    reduced[d] = true;
  }
  return reduced;
}

// Each ReduceX: what is combined (after `pre`), and what is done to the
// result.
struct Reduction {
  const char* name;
  const char* summary;
  bool float_only;
  ReduceKind kind;
  std::function<Expr(Expr)> pre;
  std::function<Expr(Expr, double count)> post;
};

const std::vector<Reduction>& reductions() {
  static const std::vector<Reduction> table = {
      {"ReduceSum", "the sum over axes (an input since opset 13), keepdims, noop_with_empty_axes", false,
       ReduceKind::kSum, identity, nullptr},
      {"ReduceMean", "the mean over axes, keepdims", false, ReduceKind::kSum, identity,
       [](Expr v, double count) { return div(v, make_const(v.dtype(), count)); }},
      {"ReduceMax", "the largest over axes, keepdims", false, ReduceKind::kMax, identity, nullptr},
      {"ReduceMin", "the smallest over axes, keepdims", false, ReduceKind::kMin, identity, nullptr},
      {"ReduceProd", "the product over axes, keepdims", false, ReduceKind::kProd, identity, nullptr},
      {"ReduceSumSquare", "the sum of squares over axes, keepdims", false, ReduceKind::kSum,
       [](Expr v) { return v * v; }, nullptr},
      {"ReduceL1", "the sum of absolute values over axes, keepdims", false, ReduceKind::kSum,
       [](Expr v) { return call(Intrinsic::abs, {v}); }, nullptr},
      {"ReduceL2", "the square root of the sum of squares over axes, keepdims", true, ReduceKind::kSum,
       [](Expr v) { return v * v; }, [](Expr v, double) { return call(Intrinsic::sqrt, {v}); }},
      {"ReduceLogSum", "the log of the sum over axes, keepdims", true, ReduceKind::kSum, identity,
       [](Expr v, double) { return call(Intrinsic::log, {v}); }},
  };
  return table;
}

const Reduction* find_reduction(const std::string& op) {
  for (const Reduction& r : reductions())
    if (op == r.name) return &r;
  return nullptr;
}

void reduce_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Reduction* r = find_reduction(n.op);
  if ((r && r->float_only) || n.op == "ReduceLogSumExp") require_float(n, x);
  if (x.dtype.is_bool()) KILN_UNSUPPORTED() << n.describe() << ": a reduction of bool";
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const bool arg = n.op == "ArgMax" || n.op == "ArgMin";
  const std::vector<bool> reduced = reduced_axes(g, n, rank);
  set_output(g, n, 0, arg ? DataType::Int64() : x.dtype, reduced_shape(x.shape, reduced, n.attr_int("keepdims", 1) != 0));
}

te::Tensor reduce_op(const Graph& g, const Node& n, const Tensors& in) {
  const Reduction& r = *find_reduction(n.op);
  const Shape& shape = required_input(g, n, 0).shape;
  const std::vector<bool> reduced = reduced_axes(g, n, static_cast<int64_t>(shape.size()));
  const bool keep = n.attr_int("keepdims", 1) != 0;
  const std::string name = n.op == "ReduceMean" ? "reduce_mean" : "reduce";
  te::Tensor total = reduce(in.at(0), shape, reduced, keep, r.kind, r.pre, r.post ? name + "_sum" : name);
  if (!r.post) return total;
  double count = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) count *= static_cast<double>(shape[d]);
  return ops::map(total, [&](Expr v) { return r.post(v, count); }, name);
}

// log(sum(exp(x))), as max + log(sum(exp(x - max))) so that exp never
// overflows.
te::Tensor reduce_log_sum_exp(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const std::vector<bool> reduced = reduced_axes(g, n, static_cast<int64_t>(shape.size()));
  const bool keep = n.attr_int("keepdims", 1) != 0;
  const ShiftedExpSum e = shifted_exp_sum(x, shape, reduced, "lse");
  const te::Tensor out = ops::map2(e.max, e.sum, [](Expr a, Expr b) { return a + call(Intrinsic::log, {b}); }, "reduce_lse");
  return keep ? out : ops::reshape(out, out_shape(g, n), "reduce_lse_out");
}

// ArgMax, ArgMin: the index of the first (or with select_last_index the
// last) extreme element along `axis`, as int64. Two reductions: the
// extreme value, then the least (greatest) index holding it.
te::Tensor arg_extreme(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const std::vector<bool> reduced = reduced_axes(g, n, static_cast<int64_t>(shape.size()));
  const bool keep = n.attr_int("keepdims", 1) != 0, last = n.attr_int("select_last_index", 0) != 0;
  const bool is_max = n.op == "ArgMax";
  const te::Tensor m = reduce(x, shape, reduced, true, is_max ? ReduceKind::kMax : ReduceKind::kMin, identity,
                              is_max ? "argmax_value" : "argmin_value");
  const std::vector<IterVar> axes = reduce_axes_of(shape, reduced, "k");
  const DataType i64 = DataType::Int64();
  int64_t extent = 0;  // of the axis: past every index
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) extent = shape[d];
  return te::compute(
      i32s(reduced_shape(shape, reduced, keep)),
      [&](const std::vector<Var>& i) {
        const std::vector<Expr> src = source_index(i, axes, reduced, keep);
        std::vector<Expr> mi = src;
        for (size_t d = 0; d < reduced.size(); ++d)
          if (reduced[d]) mi[d] = i32(0);
        const Expr k = cast(i64, axes[0].var());
        const Expr hit = eq(x(src), m(mi));
        if (last) return te::max_reduce(select(hit, k, make_const(i64, -1)), axes);
        return te::min_reduce(select(hit, k, make_const(i64, static_cast<double>(extent))), axes);
      },
      is_max ? "argmax" : "argmin");
}

// Hardmax along one axis of x (shape `in`): 1 at the first largest.
te::Tensor hardmax_along(const te::Tensor& x, const Shape& in, size_t axis) {
  std::vector<bool> reduced(in.size(), false);
  reduced[axis] = true;
  const te::Tensor m = reduce(x, in, reduced, true, ReduceKind::kMax, identity, "hardmax_max");
  const std::vector<IterVar> axes = reduce_axes_of(in, reduced, "k");
  const DataType i32t = DataType::Int32();
  const te::Tensor first = te::compute(
      i32s(reduced_shape(in, reduced, true)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> mi(i.begin(), i.end());
        const Expr k = axes[0].var();
        return te::min_reduce(select(eq(x(source_index(i, axes, reduced, true)), m(mi)), k, i32(in[axis])), axes);
      },
      "hardmax_index");
  return te::compute(
      i32s(in),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> fi(i.begin(), i.end());
        fi[axis] = i32(0);
        return cast(x.dtype(), eq(cast(i32t, i[axis]), first(fi)));
      },
      "hardmax");
}

// Softmax's family before opset 13 reads x as a matrix around `axis` (the
// axes from it on one axis); since, along `axis` alone.
te::Tensor along_softmax_axis(const Graph& g, const Node& n, const te::Tensor& x,
                              te::Tensor (*along)(const te::Tensor&, const Shape&, size_t)) {
  const Shape& in = required_input(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = normalized_axis(n, n.attr_int("axis", g.opset >= 13 ? -1 : 1), rank);
  if (g.opset >= 13 || axis == rank - 1) return along(x, in, static_cast<size_t>(axis));
  const Shape matrix{product(in, 0, static_cast<size_t>(axis)), product(in, static_cast<size_t>(axis))};
  return ops::reshape(along(ops::reshape(x, matrix), matrix, 1), in);
}

te::Tensor log_softmax(const Graph& g, const Node& n, const Tensors& in) {
  return along_softmax_axis(g, n, in.at(0), log_softmax_along);
}

te::Tensor hardmax(const Graph& g, const Node& n, const Tensors& in) {
  return along_softmax_axis(g, n, in.at(0), hardmax_along);
}

// InstanceNormalization: per sample and channel, over the spatial axes,
// (x - mean) / sqrt(var + epsilon) * scale[c] + B[c].
void instance_norm_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (x.shape.size() < 3) require_rank(n, x, 4);
  for (size_t i = 1; i < 3; ++i)
    if (required_input(g, n, i).shape != Shape{x.shape[1]})
      KILN_USER_ERROR() << n.describe() << ": input " << i << " has shape " << shape_str(g.input(n, i)->shape)
                        << ", not [" << x.shape[1] << "]";
  same_as_input(n, g);
}

te::Tensor instance_norm(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  std::vector<bool> reduced(shape.size(), true);
  reduced[0] = reduced[1] = false;
  const double count = static_cast<double>(product(shape, 2));
  const DataType t = x.dtype();
  const te::Tensor mean = ops::map(reduce(x, shape, reduced, true, ReduceKind::kSum, identity, "in_sum"),
                                   [&](Expr v) { return div(v, make_const(t, count)); }, "in_mean");
  const std::vector<IterVar> axes = reduce_axes_of(shape, reduced, "k");
  const te::Tensor var = te::compute(
      i32s(reduced_shape(shape, reduced, true)),
      [&](const std::vector<Var>& i) {
        const Expr d = x(source_index(i, axes, reduced, true)) - mean(std::vector<Expr>(i.begin(), i.end()));
        return te::sum(d * d, axes);
      },
      "in_var");
  Shape channel(shape.size() - 1, 1);  // [C, 1, ...]: broadcasts against [N, C, ...]
  channel[0] = shape[1];
  const te::Tensor scale = ops::reshape(in.at(1), channel, "in_scale"), bias = ops::reshape(in.at(2), channel, "in_bias");
  const Expr eps = make_const(t, n.attr_float("epsilon", 1e-5)), c = make_const(t, count);
  return ops::map_n({x, mean, var, scale, bias},
                    [&](const std::vector<Expr>& v) {
                      return (v[0] - v[1]) * call(Intrinsic::rsqrt, {div(v[2], c) + eps}) * v[3] + v[4];
                    },
                    "instance_norm");
}

// CumSum along a constant axis (input 1): out[.., i, ..] = the sum of x
// over positions j <= i (j < i when exclusive; from the end when reverse).
void cumsum_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (x.dtype.is_bool()) KILN_UNSUPPORTED() << n.describe() << ": a sum of bool";
  const Shape axis = constant_ints(g, n, 1, "axis");
  if (axis.size() != 1) KILN_USER_ERROR() << n.describe() << ": axis must be one value";
  shape_axis(n, axis[0], static_cast<int64_t>(x.shape.size()));
  same_as_input(n, g);
}

te::Tensor cumsum(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const size_t axis =
      static_cast<size_t>(shape_axis(n, constant_ints(g, n, 1, "axis")[0], static_cast<int64_t>(shape.size())));
  const bool exclusive = n.attr_int("exclusive", 0) != 0, reverse = n.attr_int("reverse", 0) != 0;
  IterVar j = te::reduce_axis(Range(i32(0), i32(shape[axis])), "j");
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> src(i.begin(), i.end());
        src[axis] = j.var();
        const Expr taken = reverse ? (exclusive ? gt(j.var(), i[axis]) : ge(j.var(), i[axis]))
                                   : (exclusive ? lt(j.var(), i[axis]) : le(j.var(), i[axis]));
        return te::sum(select(taken, x(src), make_zero(x.dtype())), {j});
      },
      "cumsum");
}

void global_pool_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (x.shape.size() < 3) require_rank(n, x, 4);
  Shape out = x.shape;
  std::fill(out.begin() + 2, out.end(), 1);
  set_output(g, n, 0, x.dtype, out);
}

// GlobalAveragePool, GlobalMaxPool: over every axis after N and C.
te::Tensor global_pool(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  std::vector<bool> reduced(shape.size(), true);
  reduced[0] = reduced[1] = false;
  if (n.op == "GlobalMaxPool") return reduce(in.at(0), shape, reduced, true, ReduceKind::kMax, identity, "global_max_pool");
  double count = 1;
  for (size_t d = 2; d < shape.size(); ++d) count *= static_cast<double>(shape[d]);
  const te::Tensor total = reduce(in.at(0), shape, reduced, true, ReduceKind::kSum, identity, "global_avg_pool_sum");
  return ops::map(total, [&](Expr v) { return div(v, make_const(v.dtype(), count)); }, "global_avg_pool");
}

}  // namespace

std::vector<OpDef> reduction_ops() {
  std::vector<OpDef> ops = {
      {"GlobalAveragePool", "the mean over every spatial axis", OpPattern::kReduction, global_pool_rule,
       one_output(global_pool)},
      {"GlobalMaxPool", "the largest over every spatial axis", OpPattern::kReduction, global_pool_rule,
       one_output(global_pool)},
      {"Softmax", "exp(x) / sum(exp(x)) along axis (before opset 13, over the axes from it on)",
       OpPattern::kReduction, softmax_rule, one_output(softmax)},
      {"LogSoftmax", "x - log(sum(exp(x))) along axis (before opset 13, over the axes from it on)",
       OpPattern::kReduction, softmax_rule, one_output(log_softmax)},
      {"Hardmax", "1 at the first largest along axis, else 0 (before opset 13, over the axes from it on)",
       OpPattern::kReduction, softmax_rule, one_output(hardmax)},
      {"InstanceNormalization", "(x - mean) / sqrt(var + epsilon) * scale + B per sample and channel",
       OpPattern::kReduction, instance_norm_rule, one_output(instance_norm)},
      {"CumSum", "running sums along a constant axis (exclusive, reverse)", OpPattern::kReduction, cumsum_rule,
       one_output(cumsum), 1},
      {"LayerNormalization", "(x - mean) / sqrt(var + epsilon) * Scale + B over the axes from axis on",
       OpPattern::kReduction, layer_norm_rule, layer_norm},
      {"ReduceLogSumExp", "log(sum(exp(x))) over axes, keepdims", OpPattern::kReduction, reduce_rule,
       one_output(reduce_log_sum_exp)},
      {"ArgMax", "the index of the largest along axis (keepdims, select_last_index), int64", OpPattern::kReduction,
       reduce_rule, one_output(arg_extreme)},
      {"ArgMin", "the index of the smallest along axis (keepdims, select_last_index), int64", OpPattern::kReduction,
       reduce_rule, one_output(arg_extreme)},
  };
  for (const Reduction& r : reductions())
    ops.push_back({r.name, r.summary, OpPattern::kReduction, reduce_rule, one_output(reduce_op), 1});
  return ops;
}

}  // namespace kiln::graph::operators
