// Reductions and normalizations: ReduceMean, GlobalAveragePool, Softmax,
// LayerNormalization. Fusion treats each as a reduction: the elementwise
// nodes after it join its group.
#include <numeric>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
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

void reduce_mean_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (axes.empty()) {
    axes.resize(static_cast<size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(shape_axis(n, a, rank))] = true;
  const bool keep = n.attr_int("keepdims", 1) != 0;
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) out.push_back(x.shape[static_cast<size_t>(d)]);
    else if (keep) out.push_back(1);
  }
  set_output(g, n, 0, x.dtype, out);
}

// The mean over `axes` of x, in the output shape `shape` (kept axes 1).
te::Tensor mean_over(const te::Tensor& x, const Shape& in, const std::vector<bool>& reduced, const Shape& shape,
                     const std::string& name) {
  std::vector<IterVar> axes;
  int64_t count = 1;
  for (size_t d = 0; d < in.size(); ++d)
    if (reduced[d]) {
      axes.push_back(te::reduce_axis(Range(i32(0), i32(in[d])), "k" + std::to_string(d)));
      count *= in[d];
    }
  const bool keep = shape.size() == in.size();
  te::Tensor total = te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx;
        size_t next = 0, r = 0;
        for (size_t d = 0; d < in.size(); ++d) {
          if (reduced[d]) {
            idx.push_back(axes[r++].var());
            if (keep) ++next;
          } else {
            idx.push_back(i[next++]);
          }
        }
        return te::sum(x(idx), axes);
      },
      name + "_sum");
  const Expr c = make_const(x.dtype(), static_cast<double>(count));
  return ops::map(total, [&](Expr v) { return v / c; }, name);
}

te::Tensor reduce_mean(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  std::vector<bool> reduced(shape.size(), axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(shape_axis(n, a, rank))] = true;
  return mean_over(in.at(0), shape, reduced, out_shape(g, n), "reduce_mean");
}

void global_average_pool_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (x.shape.size() < 3) require_rank(n, x, 4);
  Shape out = x.shape;
  std::fill(out.begin() + 2, out.end(), 1);
  set_output(g, n, 0, x.dtype, out);
}

te::Tensor global_average_pool(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  std::vector<bool> reduced(shape.size(), true);
  reduced[0] = reduced[1] = false;
  return mean_over(in.at(0), shape, reduced, out_shape(g, n), "global_avg_pool");
}

}  // namespace

std::vector<OpDef> reduction_ops() {
  return {
      {"GlobalAveragePool", "the mean over every spatial axis", OpPattern::kReduction, global_average_pool_rule,
       one_output(global_average_pool)},
      {"Softmax", "exp(x) / sum(exp(x)) along axis (before opset 13, over the axes from it on)",
       OpPattern::kReduction, softmax_rule, one_output(softmax)},
      {"LayerNormalization", "(x - mean) / sqrt(var + epsilon) * Scale + B over the axes from axis on",
       OpPattern::kReduction, layer_norm_rule, layer_norm},
      {"ReduceMean", "the mean over axes (an attribute up to opset 17), keepdims", OpPattern::kReduction,
       reduce_mean_rule, one_output(reduce_mean)},
  };
}

}  // namespace kiln::graph::operators
