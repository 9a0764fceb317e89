// Neural-network layers: convolutions, pooling windows, Gemm and MatMul,
// and inference BatchNormalization. Convolutions, Gemm and MatMul anchor
// fused groups (the work a task is tuned for); pools reduce.
#include <algorithm>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/broadcast.h"
#include "ops/common.h"
#include "ops/conv2d.h"
#include "ops/matmul.h"
#include "ops/pad.h"
#include "ops/pool.h"
#include "ops/window.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

// Conv, MaxPool, AveragePool over 2-D spatial axes: [N, C, H, W].
struct Window {
  Shape kernel, strides, dilations, pads;
};

Window window_of(const Node& n, const Value& x, const Shape& kernel) {
  const size_t k = x.shape.size() - 2;
  Window w;
  w.kernel = kernel;
  w.strides = n.attr_ints("strides", Shape(k, 1));
  w.dilations = n.attr_ints("dilations", Shape(k, 1));
  if (w.kernel.size() != k || w.strides.size() != k || w.dilations.size() != k)
    KILN_USER_ERROR() << n.describe() << ": kernel_shape, strides and dilations must have " << k << " values";
  w.pads = window_pads(n, Shape(x.shape.begin() + 2, x.shape.end()), w.kernel, w.strides, w.dilations);
  return w;
}

Shape window_shape(const Node& n, const Value& x, int64_t channels, const Window& w, bool ceil_mode) {
  const size_t k = w.kernel.size();
  Shape out{x.shape[0], channels};
  for (size_t i = 0; i < k; ++i) {
    const int64_t e = ops::window_count(x.shape[i + 2], w.kernel[i], w.strides[i], w.dilations[i], w.pads[i],
                                    w.pads[i + k], ceil_mode);
    if (e <= 0) KILN_USER_ERROR() << n.describe() << ": the window leaves no output along spatial axis " << i;
    out.push_back(e);
  }
  return out;
}


void conv_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& w = required_input(g, n, 1);
  require_float(n, x);
  require_rank(n, x, 4);
  require_rank(n, w, 4);
  const int64_t group = n.attr_int("group", 1);
  if (group < 1 || x.shape[1] % group || w.shape[0] % group || w.shape[1] * group != x.shape[1])
    KILN_USER_ERROR() << n.describe() << ": " << x.shape[1] << " input channels, weights " << shape_str(w.shape)
                      << " and group " << group << " do not fit together";
  const Shape kernel = n.attr_ints("kernel_shape", Shape(w.shape.begin() + 2, w.shape.end()));
  if (kernel != Shape(w.shape.begin() + 2, w.shape.end()))
    KILN_USER_ERROR() << n.describe() << ": kernel_shape " << shape_str(kernel) << " is not the weights' "
                      << shape_str(w.shape);
  if (const Value* b = g.input(n, 2); b && b->shape != Shape{w.shape[0]})
    KILN_USER_ERROR() << n.describe() << ": bias of shape " << shape_str(b->shape) << " for " << w.shape[0]
                      << " output channels";
  set_output(g, n, 0, x.dtype, window_shape(n, x, w.shape[0], window_of(n, x, kernel), false));
}

void pool_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  require_rank(n, x, 4);
  if (!n.has_attr("kernel_shape")) KILN_USER_ERROR() << n.describe() << ": kernel_shape is required";
  if (n.outputs.size() > 1 && n.outputs[1] != Node::kNone)
    KILN_UNSUPPORTED() << n.describe() << ": the Indices output is not supported";
  const Window w = window_of(n, x, n.attr_ints("kernel_shape", {}));
  set_output(g, n, 0, x.dtype, window_shape(n, x, x.shape[1], w, n.attr_int("ceil_mode", 0) != 0));
}

void gemm_rule(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 1);
  require_float(n, a);
  require_rank(n, a, 2);
  require_rank(n, b, 2);
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const int64_t kb = tb ? b.shape[1] : b.shape[0], nn = tb ? b.shape[0] : b.shape[1];
  if (k != kb)
    KILN_USER_ERROR() << n.describe() << ": A " << shape_str(a.shape) << " and B " << shape_str(b.shape)
                      << " do not multiply";
  if (const Value* c = g.input(n, 2)) broadcast_shapes(n, {m, nn}, c->shape);
  set_output(g, n, 0, a.dtype, {m, nn});
}

void matmul_rule(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 1);
  if (a.dtype != b.dtype) KILN_USER_ERROR() << n.describe() << ": inputs of " << a.dtype.str() << " and " << b.dtype.str();
  if (a.shape.empty() || b.shape.empty()) KILN_USER_ERROR() << n.describe() << ": an input is a scalar";
  // numpy.matmul: a vector is a matrix of one row (A) or one column (B),
  // that axis then dropped from the result.
  Shape sa = a.shape.size() == 1 ? Shape{1, a.shape[0]} : a.shape;
  Shape sb = b.shape.size() == 1 ? Shape{b.shape[0], 1} : b.shape;
  if (sa.back() != sb[sb.size() - 2])
    KILN_USER_ERROR() << n.describe() << ": " << shape_str(a.shape) << " and " << shape_str(b.shape)
                      << " do not multiply";
  Shape out = broadcast_shapes(n, Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2));
  if (a.shape.size() > 1) out.push_back(sa[sa.size() - 2]);
  if (b.shape.size() > 1) out.push_back(sb.back());
  set_output(g, n, 0, a.dtype, out);
}

void batch_norm_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (x.shape.size() < 2) require_rank(n, x, 2);
  if (n.attr_int("training_mode", 0) != 0)
    KILN_UNSUPPORTED() << n.describe() << ": training_mode is not supported (inference only)";
  for (size_t i = 1; i < 5; ++i)
    if (required_input(g, n, i).shape != Shape{x.shape[1]})
      KILN_USER_ERROR() << n.describe() << ": input " << i << " has shape " << shape_str(g.input(n, i)->shape)
                        << ", not [" << x.shape[1] << "]";
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] != Node::kNone)
      KILN_UNSUPPORTED() << n.describe() << ": the running mean and variance outputs are for training only";
  same_as_input(n, g);
}

// y = (x - mean[c]) * scale[c] / sqrt(var[c] + epsilon) + B[c], c axis 1.
te::Tensor batch_norm(const Graph&, const Node& n, const Tensors& in) {
  const te::Tensor &x = in[0], &scale = in[1], &bias = in[2], &mean = in[3], &var = in[4];
  const Expr eps = make_const(x.dtype(), n.attr_float("epsilon", 1e-5));
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        const Var& c = i[1];
        return (x(idx) - mean(c)) * scale(c) * call(Intrinsic::rsqrt, {var(c) + eps}) + bias(c);
      },
      "batch_norm");
}

// Gemm: a dense layer (ops::dense) where it is one, else the formula.
te::Tensor gemm(const Graph& g, const Node& n, const Tensors& in) {
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  const Value* c = g.input(n, 2);
  const Shape& out = out_shape(g, n);
  if (!ta && tb && alpha == 1.0 && (!c || (beta == 1.0 && c->shape == Shape{out[1]})))
    return ops::dense(in[0], in[1], c ? in[2] : te::Tensor());
  const te::Tensor &A = in[0], &B = in[1];
  const int64_t k = required_input(g, n, 0).shape[ta ? 0 : 1];
  IterVar r = te::reduce_axis(Range(i32(0), i32(k)), "k");
  te::Tensor prod = te::compute(
      i32s(out),
      [&](Var i, Var j) {
        Expr a = ta ? A(r, i) : A(i, r);
        Expr b = tb ? B(j, r) : B(r, j);
        return te::sum(a * b, {r});
      },
      "gemm");
  const DataType t = A.dtype();
  if (!c) return alpha == 1.0 ? prod : ops::map(prod, [&](Expr v) { return v * make_const(t, alpha); }, "gemm_scale");
  return ops::map2(
      prod, in[2], [&](Expr p, Expr cv) { return p * make_const(t, alpha) + cv * make_const(t, beta); }, "gemm_out");
}

te::Tensor matmul(const Graph& g, const Node& n, const Tensors& in) {
  const Shape &a = required_input(g, n, 0).shape, &b = required_input(g, n, 1).shape;
  if (a.size() == 2 && b.size() == 2) return ops::matmul(in[0], in[1], "matmul");
  if (a.size() == 3 && b.size() == 3 && a[0] == b[0]) return ops::batch_matmul(in[0], in[1], "matmul");
  // Broadcast batches, vectors: by the formula, each operand read through
  // broadcast_load of its batch axes.
  const Shape& out = out_shape(g, n);
  const int64_t k = a.back();
  IterVar r = te::reduce_axis(Range(i32(0), i32(k)), "k");
  const te::Tensor &A = in[0], &B = in[1];
  return te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        // out's axes: batch..., then M (if A is a matrix), then N (if B is).
        const size_t batch = out.size() - (a.size() > 1) - (b.size() > 1);
        auto operand = [&](const te::Tensor& t, const Shape& s, bool is_a) {
          std::vector<Expr> idx;
          const size_t tb = s.size() >= 2 ? s.size() - 2 : 0;
          for (size_t d = 0; d < tb; ++d) {
            const size_t od = batch - tb + d;
            idx.push_back(s[d] == 1 ? Expr(i32(0)) : Expr(i[od]));
          }
          if (is_a) {
            if (s.size() > 1) idx.push_back(i[batch]);
            idx.push_back(r.var());
          } else {
            idx.push_back(r.var());
            if (s.size() > 1) idx.push_back(i[out.size() - 1]);
          }
          return t(idx);
        };
        return te::sum(operand(A, a, true) * operand(B, b, false), {r});
      },
      "matmul");
}

te::Tensor conv(const Graph& g, const Node& n, const Tensors& in) {
  const Value& x = required_input(g, n, 0);
  const Value& w = required_input(g, n, 1);
  const Shape kernel(w.shape.begin() + 2, w.shape.end());
  const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
  const Shape pads = window_pads(n, Shape(x.shape.begin() + 2, x.shape.end()), kernel, strides, dilations);
  if (strides[0] != strides[1]) not_yet(n, "a stride that differs between height and width");
  if (dilations[0] != dilations[1]) not_yet(n, "a dilation that differs between height and width");
  ops::Conv2dConfig cfg;
  cfg.stride = strides[0];
  cfg.dilation = dilations[0];
  cfg.groups = n.attr_int("group", 1);
  te::Tensor data = in[0];
  if (pads[0] == pads[1] && pads[1] == pads[2] && pads[2] == pads[3]) {
    cfg.pad = pads[0];
  } else {  // asymmetric: an explicit pad stage, the convolution unpadded
    data = ops::pad(in[0], {0, 0, pads[0], pads[1]}, {0, 0, pads[2], pads[3]}, make_zero(x.dtype));
  }
  te::Tensor y = ops::conv2d_nchw(data, in[1], cfg);
  if (!g.input(n, 2)) return y;
  const te::Tensor& bias = in[2];
  return te::compute(
      y.shape(), [&](Var b, Var k, Var p, Var q) { return y(b, k, p, q) + bias(k); }, "bias_add");
}

// A pooling window ops/pool.h does not take: asymmetric pads, the extra
// window of ceil_mode, dilation, strides that differ by axis, padding
// counted in the average (count_include_pad). One pad stage wide enough
// for every window, the reduction over the dilated window, and for the
// average each window's count as ONNX counts it: the input positions it
// covers, or with count_include_pad those and the explicit pads (never
// what ceil_mode's last window hangs past them).
te::Tensor window_pool(const Graph& g, const Node& n, const te::Tensor& x, const Shape& kernel, const Shape& strides,
                       const Shape& dilations, const Shape& pads) {
  const Value& in = required_input(g, n, 0);
  const Shape out = g.value(n.outputs[0]).shape;
  Shape lo(2), hi(2);
  for (size_t a = 0; a < 2; ++a) {
    const int64_t needed = (out[2 + a] - 1) * strides[a] + dilations[a] * (kernel[a] - 1) + 1;
    lo[a] = pads[a];
    hi[a] = std::max(pads[a + 2], needed - in.shape[2 + a] - pads[a]);
  }
  const bool is_max = n.op == "MaxPool";
  te::Tensor padded = ops::pad(x, {0, 0, lo[0], lo[1]}, {0, 0, hi[0], hi[1]},
                               is_max ? min_value(x.dtype()) : make_zero(x.dtype()));
  auto at = [&](const Var& o, const Var& r, size_t a) {
    return o * ops::i32(strides[a]) + r * ops::i32(dilations[a]);
  };
  IterVar rr = te::reduce_axis(Range(ops::i32(0), ops::i32(kernel[0])), "r");
  IterVar rs = te::reduce_axis(Range(ops::i32(0), ops::i32(kernel[1])), "s");
  const std::vector<Expr> shape = i32s(out);
  if (is_max)
    return te::compute(
        shape,
        [&](Var b, Var c, Var p, Var q) {
          return te::max_reduce(padded(b, c, at(p, rr.var(), 0), at(q, rs.var(), 1)), {rr, rs});
        },
        "pool_max");
  te::Tensor total = te::compute(
      shape,
      [&](Var b, Var c, Var p, Var q) { return te::sum(padded(b, c, at(p, rr.var(), 0), at(q, rs.var(), 1)), {rr, rs}); },
      "pool_sum");
  // Per axis: how many of a window's positions count.
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  auto count = [&](size_t a) {
    IterVar r = te::reduce_axis(Range(ops::i32(0), ops::i32(kernel[a])), a == 0 ? "cr" : "cs");
    const int64_t first = include_pad ? 0 : lo[a], end = lo[a] + in.shape[2 + a] + (include_pad ? pads[a + 2] : 0);
    return te::compute(
        {ops::i32(out[2 + a])},
        [&](Var o) {
          Expr t = at(o, r.var(), a);
          return te::sum(cast(x.dtype(), logical_and(ge(t, ops::i32(first)), lt(t, ops::i32(end)))), {r});
        },
        a == 0 ? "pool_rows" : "pool_cols");
  };
  te::Tensor rows = count(0), cols = count(1);
  return te::compute(
      shape, [&](Var b, Var c, Var p, Var q) { return total(b, c, p, q) / (rows(p) * cols(q)); }, "pool_avg");
}

te::Tensor pool(const Graph& g, const Node& n, const Tensors& inputs) {
  const te::Tensor& x = inputs.at(0);
  const Value& in = required_input(g, n, 0);
  const Shape kernel = n.attr_ints("kernel_shape", {});
  const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
  const Shape pads = window_pads(n, Shape(in.shape.begin() + 2, in.shape.end()), kernel, strides, dilations);
  // The common window (the workloads of ops/pool.h, whose keys tune-op
  // shares): square strides, no dilation, one pad all round, no window
  // past the pads, the average over the input alone.
  ops::Pool2dConfig cfg{kernel[0], kernel[1], strides[0], pads[0]};
  const bool common = strides[0] == strides[1] && dilations == Shape{1, 1} &&
                      pads[0] == pads[1] && pads[1] == pads[2] && pads[2] == pads[3] &&
                      !(n.op == "AveragePool" && n.attr_int("count_include_pad", 0) != 0 && pads[0] != 0) &&
                      pads[0] < std::min(kernel[0], kernel[1]);
  if (common) {
    te::Tensor y = n.op == "MaxPool" ? ops::max_pool2d(x, cfg) : ops::avg_pool2d(x, cfg);
    if (g.value(n.outputs[0]).shape ==
        Shape{in.shape[0], in.shape[1], *as_const_int(y.shape()[2]), *as_const_int(y.shape()[3])})
      return y;
  }
  return window_pool(g, n, x, kernel, strides, dilations, pads);
}

}  // namespace

std::vector<OpDef> nn_ops() {
  return {
      {"Conv", "2-D convolution: groups (depthwise), strides, pads or auto_pad, dilations, optional bias",
       OpPattern::kAnchor, conv_rule, one_output(conv)},
      {"Gemm", "alpha * A' * B' + beta * C, A and B optionally transposed", OpPattern::kAnchor, gemm_rule,
       one_output(gemm)},
      {"MatMul", "numpy matmul: batched, broadcast, vectors", OpPattern::kAnchor, matmul_rule, one_output(matmul)},
      {"BatchNormalization", "inference: (x - mean) / sqrt(var + epsilon) * scale + B per channel",
       OpPattern::kElementwise, batch_norm_rule, one_output(batch_norm)},
      {"MaxPool", "2-D max pooling: strides, pads or auto_pad, dilations, ceil_mode", OpPattern::kReduction,
       pool_rule, one_output(pool)},
      {"AveragePool", "2-D average pooling: strides, pads or auto_pad, ceil_mode, count_include_pad",
       OpPattern::kReduction, pool_rule, one_output(pool)},
  };
}

}  // namespace kiln::graph::operators
