// Neural-network layers: convolutions, pooling windows, Gemm and MatMul,
// and inference BatchNormalization. Convolutions, Gemm and MatMul anchor
// fused groups (the work a task is tuned for); pools reduce.
#include <algorithm>
#include <cctype>
#include <map>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/nn.h"
#include "graph/operators/quantize.h"
#include "ops/broadcast.h"
#include "ops/common.h"
#include "ops/conv2d.h"
#include "ops/matmul.h"
#include "ops/pad.h"
#include "ops/pool.h"
#include "ops/window.h"
#include "tir/tensor_intrin.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

// Conv, MaxPool, AveragePool over 1 to 3 spatial axes: [N, C, S...].
void require_spatial(const Node& n, const Value& v) {
  if (v.shape.size() < 3 || v.shape.size() > 5)
    KILN_UNSUPPORTED() << n.describe() << ": input '" << v.name << "' has shape " << shape_str(v.shape)
                      << "; 1 to 3 spatial axes are supported";
}

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
  for (size_t a = 0; a < k; ++a)
    if (w.kernel[a] < 1 || w.strides[a] < 1 || w.dilations[a] < 1)
      KILN_USER_ERROR() << n.describe() << ": kernel_shape, strides and dilations must be positive";
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

// A convolution's data and weights, of one rank and 1 to 3 spatial axes.
std::pair<const Value&, const Value&> conv_operands(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  const Value& w = required_input(g, n, 1);
  require_float(n, x);
  require_spatial(n, x);
  require_rank(n, w, x.shape.size());
  return {x, w};
}

// y plus a bias per output channel (axis 1), when the node has input 2.
te::Tensor with_channel_bias(const Graph& g, const Node& n, const te::Tensor& y, const Tensors& in) {
  if (!g.input(n, 2)) return y;
  const te::Tensor& bias = in.at(2);
  return te::compute(
      y.shape(),
      [&](const std::vector<Var>& i) { return y(std::vector<Expr>(i.begin(), i.end())) + bias(i[1]); }, "bias_add");
}

}  // namespace

Shape conv_shape(const Node& n, const Value& x, const Value& w, const Value* bias) {
  require_spatial(n, x);
  require_rank(n, w, x.shape.size());
  const int64_t group = n.attr_int("group", 1);
  if (group < 1 || x.shape[1] % group || w.shape[0] % group || w.shape[1] * group != x.shape[1])
    KILN_USER_ERROR() << n.describe() << ": " << x.shape[1] << " input channels, weights " << shape_str(w.shape)
                      << " and group " << group << " do not fit together";
  const Shape kernel = n.attr_ints("kernel_shape", Shape(w.shape.begin() + 2, w.shape.end()));
  if (kernel != Shape(w.shape.begin() + 2, w.shape.end()))
    KILN_USER_ERROR() << n.describe() << ": kernel_shape " << shape_str(kernel) << " is not the weights' "
                      << shape_str(w.shape);
  if (bias && bias->shape != Shape{w.shape[0]})
    KILN_USER_ERROR() << n.describe() << ": bias of shape " << shape_str(bias->shape) << " for " << w.shape[0]
                      << " output channels";
  return window_shape(n, x, w.shape[0], window_of(n, x, kernel), false);
}

namespace {

void conv_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  set_output(g, n, 0, x.dtype, conv_shape(n, x, required_input(g, n, 1), g.input(n, 2)));
}

void pool_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  require_spatial(n, x);
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

}  // namespace

Shape matmul_shape(const Node& n, const Value& a, const Value& b) {
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
  return out;
}

namespace {

// MatMulInteger: (A - a_zero_point) * (B - b_zero_point) in int32, the
// operands int8 or uint8, each zero point one value (or A's one per row,
// B's one per column).
bool is_matmul_integer(const Node& n) { return n.op == "MatMulInteger"; }

void matmul_rule(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 1);
  if (is_matmul_integer(n)) {
    for (const Value* v : {&a, &b})
      if (v->dtype != DataType::UInt(8) && v->dtype != DataType::Int(8))
        KILN_USER_ERROR() << n.describe() << ": input '" << v->name << "' is " << v->dtype.str() << ", not int8 or uint8";
    for (size_t i : {size_t{2}, size_t{3}}) {
      const Value* zp = g.input(n, i);
      const Value& of = i == 2 ? a : b;
      if (!zp) continue;
      if (zp->dtype != of.dtype)
        KILN_USER_ERROR() << n.describe() << ": zero point of " << zp->dtype.str() << " for " << of.dtype.str();
      const int64_t along = i == 2 ? (a.shape.size() > 1 ? a.shape[a.shape.size() - 2] : 1)
                                   : (b.shape.size() > 1 ? b.shape.back() : 1);
      if (zp->numel() != 1 && (zp->shape.size() != 1 || zp->shape[0] != along))
        not_yet(n, "a zero point of shape " + shape_str(zp->shape));
    }
  } else if (a.dtype != b.dtype) {
    KILN_USER_ERROR() << n.describe() << ": inputs of " << a.dtype.str() << " and " << b.dtype.str();
  }
  set_output(g, n, 0, is_matmul_integer(n) ? DataType::Int(32) : a.dtype, matmul_shape(n, a, b));
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

// An integer operand's zero point in int32 at `index` (its row for A, its
// column for B): one value, or one per row or column.
Expr zero_point_at(const te::Tensor& zp, const Expr& index) { return cast(DataType::Int(32), param_at(zp, index)); }

// Broadcast batches, vectors: numpy.matmul by the formula, each operand
// read through broadcast_load of its batch axes; `integer`: in int32, less
// the zero points given (A's by row, B's by column).
te::Tensor product_by_formula(const Shape& a, const Shape& b, const Shape& out, const te::Tensor& A,
                              const te::Tensor& B, bool integer, const te::Tensor* a_zp, const te::Tensor* b_zp) {
  const int64_t k = a.back();
  IterVar r = te::reduce_axis(Range(i32(0), i32(k)), "k");
  return te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        // out's axes: batch..., then M (if A is a matrix), then N (if B is).
        const size_t batch = out.size() - (a.size() > 1) - (b.size() > 1);
        auto operand = [&](const te::Tensor& t, const Shape& s, bool is_a) {
          std::vector<Expr> idx = batch_index(s, i, batch);
          if (is_a) {
            if (s.size() > 1) idx.push_back(i[batch]);
            idx.push_back(r.var());
          } else {
            idx.push_back(r.var());
            if (s.size() > 1) idx.push_back(i[out.size() - 1]);
          }
          if (!integer) return t(idx);
          Expr v = cast(DataType::Int(32), t(idx));
          if (const te::Tensor* zp = is_a ? a_zp : b_zp) v = v - zero_point_at(*zp, idx[idx.size() - (is_a ? 2 : 1)]);
          return v;
        };
        return te::sum(operand(A, a, true) * operand(B, b, false), {r});
      },
      "matmul");
}

// The 2-D integer product with zero points, as the int8 dot products
// compute it: the plain product of the operands (ops::matmul_widened, the
// form the search tensorizes), less the zero points' terms,
//   sum_k (a - za)(b - zb) = sum_k a b - za sum_k b - zb sum_k a + K za zb,
// with B's column sums and A's row sums as small reductions of their own.
te::Tensor integer_matmul_2d(const te::Tensor& A, const te::Tensor& B, const te::Tensor* a_zp,
                             const te::Tensor* b_zp, bool small_weights) {
  const DataType i32t = DataType::Int(32);
  te::Tensor prod = ops::matmul_widened(A, B, i32t, "matmul");
  if (small_weights) prod = te::annotate(prod, kSmallWeightsAnn, Expr(1));
  if (!a_zp && !b_zp) return prod;
  const Expr M = A.shape()[0], K = A.shape()[1], N = B.shape()[1];
  te::Tensor col_sum, row_sum;
  if (a_zp) {
    IterVar r = te::reduce_axis(Range(i32(0), K), "k");
    col_sum = te::compute({N}, [&](Var j) { return te::sum(cast(i32t, B(r, j)), {r}); }, "column_sum");
  }
  if (b_zp) {
    IterVar r = te::reduce_axis(Range(i32(0), K), "k");
    row_sum = te::compute({M}, [&](Var i) { return te::sum(cast(i32t, A(i, r)), {r}); }, "row_sum");
  }
  return te::compute(
      prod.shape(),
      [&](Var i, Var j) {
        Expr v = prod(i, j);
        if (a_zp) v = v - zero_point_at(*a_zp, i) * col_sum(j);
        if (b_zp) v = v - zero_point_at(*b_zp, j) * row_sum(i);
        if (a_zp && b_zp) v = v + cast(i32t, K) * zero_point_at(*a_zp, i) * zero_point_at(*b_zp, j);
        return v;
      },
      "matmul_zero_points");
}

}  // namespace

te::Tensor integer_matmul(const Shape& a, const Shape& b, const Shape& out, const te::Tensor& A, const te::Tensor& B,
                          const te::Tensor* a_zp, const te::Tensor* b_zp, bool small_weights) {
  if (a.size() == 2 && b.size() == 2) return integer_matmul_2d(A, B, a_zp, b_zp, small_weights);
  return product_by_formula(a, b, out, A, B, true, a_zp, b_zp);
}

const te::Tensor* zero_point_input(const Graph& g, const Node& n, size_t i, const Tensors& in) {
  const Value* v = g.input(n, i);
  return v && !v->is_zeros() ? &in.at(i) : nullptr;
}

namespace {

te::Tensor matmul(const Graph& g, const Node& n, const Tensors& in) {
  const Shape &a = required_input(g, n, 0).shape, &b = required_input(g, n, 1).shape;
  if (is_matmul_integer(n))
    return integer_matmul(a, b, out_shape(g, n), in[0], in[1], zero_point_input(g, n, 2, in),
                          zero_point_input(g, n, 3, in), holds_7_bits(required_input(g, n, 1)));
  if (a.size() == 2 && b.size() == 2) return ops::matmul(in[0], in[1], "matmul");
  if (a.size() == 3 && b.size() == 3 && a[0] == b[0]) return ops::batch_matmul(in[0], in[1], "matmul");
  return product_by_formula(a, b, out_shape(g, n), in[0], in[1], false, nullptr, nullptr);
}

// A convolution by its formula, over any number of spatial axes, each
// with its own stride, dilation and pads: one pad stage, then
// out[b, k, o...] = sum over c, r... of x[b, group(k) * C/g + c, o * s + r * d] * w[k, c, r...].
te::Tensor conv_general(const Node& n, const te::Tensor& x, const te::Tensor& w, const Shape& xs, const Shape& ws,
                        const Shape& out, const Shape& strides, const Shape& dilations, const Shape& pads) {
  const size_t k = ws.size() - 2;
  Shape lo(k + 2, 0), hi(k + 2, 0);
  bool padded = false;
  for (size_t a = 0; a < k; ++a) {
    lo[2 + a] = pads[a];
    hi[2 + a] = pads[a + k];
    padded = padded || pads[a] || pads[a + k];
  }
  const te::Tensor data = padded ? ops::pad(x, lo, hi, make_zero(x.dtype())) : x;
  const int64_t group = n.attr_int("group", 1), per_group = ws[0] / group, channels = ws[1];
  IterVar rc = te::reduce_axis(Range(i32(0), i32(channels)), "rc");
  std::vector<IterVar> window{rc};
  for (size_t a = 0; a < k; ++a) window.push_back(te::reduce_axis(Range(i32(0), i32(ws[2 + a])), "r" + std::to_string(a)));
  return te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        const Expr c = group == 1 ? Expr(rc.var()) : floordiv(i[1], i32(per_group)) * i32(channels) + rc.var();
        std::vector<Expr> xi{i[0], c}, wi{i[1], rc.var()};
        for (size_t a = 0; a < k; ++a) {
          xi.push_back(i[2 + a] * i32(strides[a]) + window[1 + a].var() * i32(dilations[a]));
          wi.push_back(window[1 + a].var());
        }
        return te::sum(data(xi) * w(wi), window);
      },
      "conv");
}

}  // namespace

te::Tensor convolution(const Node& n, const te::Tensor& x, const te::Tensor& w, const Shape& xs, const Shape& ws,
                       const Shape& out) {
  const Shape kernel(ws.begin() + 2, ws.end());
  const Shape strides = n.attr_ints("strides", Shape(kernel.size(), 1));
  const Shape dilations = n.attr_ints("dilations", Shape(kernel.size(), 1));
  const Shape pads = window_pads(n, Shape(xs.begin() + 2, xs.end()), kernel, strides, dilations);
  if (kernel.size() != 2 || strides[0] != strides[1] || dilations[0] != dilations[1])
    return conv_general(n, x, w, xs, ws, out, strides, dilations, pads);
  // ops::conv2d_nchw, whose workloads tune-op shares.
  ops::Conv2dConfig cfg;
  cfg.stride = strides[0];
  cfg.dilation = dilations[0];
  cfg.groups = n.attr_int("group", 1);
  te::Tensor data = x;
  if (pads[0] == pads[1] && pads[1] == pads[2] && pads[2] == pads[3]) {
    cfg.pad = pads[0];
  } else {  // asymmetric: an explicit pad stage, the convolution unpadded
    data = ops::pad(x, {0, 0, pads[0], pads[1]}, {0, 0, pads[2], pads[3]}, make_zero(x.dtype()));
  }
  return ops::conv2d_nchw(data, w, cfg);
}

namespace {

te::Tensor conv(const Graph& g, const Node& n, const Tensors& in) {
  const Shape &xs = required_input(g, n, 0).shape, &ws = required_input(g, n, 1).shape;
  return with_channel_bias(g, n, convolution(n, in[0], in[1], xs, ws, out_shape(g, n)), in);
}

// A pooling window ops/pool.h does not take: 1-D or 3-D, asymmetric pads,
// the extra window of ceil_mode, dilation, strides that differ by axis,
// padding counted in the average (count_include_pad). One pad stage wide
// enough for every window, the reduction over the dilated window, and for
// the average each window's count as ONNX counts it: the input positions
// it covers, or with count_include_pad those and the explicit pads (never
// what ceil_mode's last window hangs past them), a product of one count
// per spatial axis.
te::Tensor window_pool(const Graph& g, const Node& n, const te::Tensor& x, const Shape& kernel, const Shape& strides,
                       const Shape& dilations, const Shape& pads) {
  const Value& in = required_input(g, n, 0);
  const Shape out = g.value(n.outputs[0]).shape;
  const size_t k = kernel.size();
  Shape lo(k + 2, 0), hi(k + 2, 0);
  for (size_t a = 0; a < k; ++a) {
    const int64_t needed = (out[2 + a] - 1) * strides[a] + dilations[a] * (kernel[a] - 1) + 1;
    lo[2 + a] = pads[a];
    hi[2 + a] = std::max(pads[a + k], needed - in.shape[2 + a] - pads[a]);
  }
  const bool is_max = n.op == "MaxPool";
  te::Tensor padded = ops::pad(x, lo, hi, is_max ? min_value(x.dtype()) : make_zero(x.dtype()));
  auto at = [&](const Expr& o, const Var& r, size_t a) { return o * i32(strides[a]) + r * i32(dilations[a]); };
  std::vector<IterVar> window;
  for (size_t a = 0; a < k; ++a) window.push_back(te::reduce_axis(Range(i32(0), i32(kernel[a])), "r" + std::to_string(a)));
  auto source = [&](const std::vector<Var>& i) {
    std::vector<Expr> idx{i[0], i[1]};
    for (size_t a = 0; a < k; ++a) idx.push_back(at(i[2 + a], window[a].var(), a));
    return padded(idx);
  };
  const std::vector<Expr> shape = i32s(out);
  if (is_max)
    return te::compute(shape, [&](const std::vector<Var>& i) { return te::max_reduce(source(i), window); }, "pool_max");
  te::Tensor total =
      te::compute(shape, [&](const std::vector<Var>& i) { return te::sum(source(i), window); }, "pool_sum");
  // Per axis: how many of a window's positions count.
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  std::vector<te::Tensor> counts;
  for (size_t a = 0; a < k; ++a) {
    IterVar r = te::reduce_axis(Range(i32(0), i32(kernel[a])), "c" + std::to_string(a));
    const int64_t first = include_pad ? 0 : lo[2 + a];
    const int64_t end = lo[2 + a] + in.shape[2 + a] + (include_pad ? pads[a + k] : 0);
    counts.push_back(te::compute(
        {i32(out[2 + a])},
        [&](Var o) {
          const Expr t = at(o, r.var(), a);
          return te::sum(cast(x.dtype(), logical_and(ge(t, i32(first)), lt(t, i32(end)))), {r});
        },
        "pool_count" + std::to_string(a)));
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        Expr divisor = counts[0](i[2]);
        for (size_t a = 1; a < k; ++a) divisor = divisor * counts[a](i[2 + a]);
        return total(std::vector<Expr>(i.begin(), i.end())) / divisor;
      },
      "pool_avg");
}

te::Tensor pool(const Graph& g, const Node& n, const Tensors& inputs) {
  const te::Tensor& x = inputs.at(0);
  const Value& in = required_input(g, n, 0);
  const Shape kernel = n.attr_ints("kernel_shape", {});
  const Shape strides = n.attr_ints("strides", Shape(kernel.size(), 1));
  const Shape dilations = n.attr_ints("dilations", Shape(kernel.size(), 1));
  const Shape pads = window_pads(n, Shape(in.shape.begin() + 2, in.shape.end()), kernel, strides, dilations);
  if (kernel.size() != 2) return window_pool(g, n, x, kernel, strides, dilations, pads);
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

// ConvTranspose, x [N, C, S...] and w [C, K/group, R...]: each input
// position scatters its kernel into the output, read here as a gather:
// out[b, k, o...] = sum over c, r... of x[b, c, (o + pad - r * d) / s] * w[c, k, r...]
// where the division is exact and lands inside x.
struct TransposedWindow {
  Shape kernel, strides, dilations, pads;  // pads {begin..., end...}
  Shape out;                               // spatial extents
};

TransposedWindow transposed_window(const Node& n, const Value& x, const Value& w) {
  const size_t k = x.shape.size() - 2;
  TransposedWindow t;
  t.kernel = n.attr_ints("kernel_shape", Shape(w.shape.begin() + 2, w.shape.end()));
  t.strides = n.attr_ints("strides", Shape(k, 1));
  t.dilations = n.attr_ints("dilations", Shape(k, 1));
  const Shape output_padding = n.attr_ints("output_padding", Shape(k, 0));
  if (t.kernel != Shape(w.shape.begin() + 2, w.shape.end()) || t.strides.size() != k || t.dilations.size() != k ||
      output_padding.size() != k)
    KILN_USER_ERROR() << n.describe() << ": kernel_shape, strides, dilations and output_padding must have " << k
                      << " values matching the weights " << shape_str(w.shape);
  for (size_t a = 0; a < k; ++a)
    if (t.strides[a] < 1 || t.dilations[a] < 1) KILN_USER_ERROR() << n.describe() << ": strides and dilations must be positive";
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  Shape full(k);  // the output before padding is cut
  for (size_t a = 0; a < k; ++a)
    full[a] = t.strides[a] * (x.shape[2 + a] - 1) + output_padding[a] + (t.kernel[a] - 1) * t.dilations[a] + 1;
  Shape wanted = n.attr_ints("output_shape", {});
  if (wanted.size() > k) wanted.erase(wanted.begin(), wanted.begin() + static_cast<int64_t>(wanted.size() - k));
  if (wanted.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (size_t a = 0; a < k; ++a) wanted.push_back(x.shape[2 + a] * t.strides[a]);
  t.pads.assign(2 * k, 0);
  if (!wanted.empty()) {
    if (wanted.size() != k) KILN_USER_ERROR() << n.describe() << ": output_shape of " << wanted.size() << " values";
    for (size_t a = 0; a < k; ++a) {
      // As ONNX writes it: SAME_UPPER puts the smaller half first, anything
      // else the larger; a negative total (an output_shape past the full
      // output) pads with zeros. Halves round down.
      const int64_t total = full[a] - wanted[a];
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      t.pads[a] = auto_pad == "SAME_UPPER" ? half : total - half;
      t.pads[a + k] = total - t.pads[a];
    }
  } else if (n.has_attr("pads")) {
    t.pads = n.attr_ints("pads", {});
    if (t.pads.size() != 2 * k) KILN_USER_ERROR() << n.describe() << ": " << t.pads.size() << " pads for " << k << " axes";
  }
  for (size_t a = 0; a < k; ++a) {
    t.out.push_back(full[a] - t.pads[a] - t.pads[a + k]);
    if (t.out.back() <= 0) KILN_USER_ERROR() << n.describe() << ": the pads leave no output along spatial axis " << a;
  }
  return t;
}

void conv_transpose_rule(const Node& n, Graph& g) {
  const auto [x, w] = conv_operands(g, n);
  const int64_t group = n.attr_int("group", 1);
  if (group < 1 || w.shape[0] != x.shape[1] || x.shape[1] % group)
    KILN_USER_ERROR() << n.describe() << ": " << x.shape[1] << " input channels, weights " << shape_str(w.shape)
                      << " and group " << group << " do not fit together";
  const int64_t channels = w.shape[1] * group;
  if (const Value* b = g.input(n, 2); b && b->shape != Shape{channels})
    KILN_USER_ERROR() << n.describe() << ": bias of shape " << shape_str(b->shape) << " for " << channels
                      << " output channels";
  Shape out{x.shape[0], channels};
  const Shape spatial = transposed_window(n, x, w).out;
  out.insert(out.end(), spatial.begin(), spatial.end());
  set_output(g, n, 0, x.dtype, out);
}

te::Tensor conv_transpose(const Graph& g, const Node& n, const Tensors& in) {
  const Value& xv = required_input(g, n, 0);
  const Value& wv = required_input(g, n, 1);
  const TransposedWindow t = transposed_window(n, xv, wv);
  const size_t k = t.kernel.size();
  const int64_t group = n.attr_int("group", 1), per_group_out = wv.shape[1], per_group_in = xv.shape[1] / group;
  const te::Tensor &x = in.at(0), &w = in.at(1);
  IterVar rc = te::reduce_axis(Range(i32(0), i32(per_group_in)), "rc");
  std::vector<IterVar> window{rc};
  for (size_t a = 0; a < k; ++a) window.push_back(te::reduce_axis(Range(i32(0), i32(t.kernel[a])), "r" + std::to_string(a)));
  const te::Tensor y = te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        const Expr g_of_k = floordiv(i[1], i32(per_group_out));
        const Expr c = g_of_k * i32(per_group_in) + rc.var();
        std::vector<Expr> xi{i[0], c}, wi{c, floormod(i[1], i32(per_group_out))};
        Expr inside = make_const(DataType::Bool(), 1);
        for (size_t a = 0; a < k; ++a) {
          const Expr p = i[2 + a] + i32(t.pads[a]) - window[1 + a].var() * i32(t.dilations[a]);
          const Expr q = floordiv(p, i32(t.strides[a]));
          inside = logical_and(inside, logical_and(eq(floormod(p, i32(t.strides[a])), i32(0)),
                                                   logical_and(ge(q, i32(0)), lt(q, i32(xv.shape[2 + a])))));
          xi.push_back(min(max(q, i32(0)), i32(xv.shape[2 + a] - 1)));  // in bounds where the select drops it
          wi.push_back(window[1 + a].var());
        }
        return te::sum(select(inside, x(xi) * w(wi), make_zero(x.dtype())), window);
      },
      "conv_transpose");
  return with_channel_bias(g, n, y, in);
}

// Einsum: each operand's axes named by letters ("bij,bjk->bik"); the
// output's letters (given after "->", or else the letters that appear
// once, in alphabetical order) index the result, and every other letter is
// summed over. A letter repeated within an operand reads its diagonal.
struct EinsumSpec {
  std::vector<std::string> operands;
  std::string output;
  std::map<char, int64_t> extents;
};

EinsumSpec einsum_spec(const Graph& g, const Node& n) {
  std::string eq;
  for (char c : n.attr_string("equation", "")) {
    if (c != ' ') eq += c;
  }
  if (eq.find("...") != std::string::npos) not_yet(n, "an Einsum with an ellipsis");
  EinsumSpec spec;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    spec.operands.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (spec.operands.size() != n.inputs.size())
    KILN_USER_ERROR() << n.describe() << ": the equation '" << eq << "' names " << spec.operands.size()
                      << " operands for " << n.inputs.size() << " inputs";
  std::map<char, int> uses;
  for (size_t k = 0; k < spec.operands.size(); ++k) {
    const std::string& letters = spec.operands[k];
    const Value& v = required_input(g, n, k);
    if (letters.size() != v.shape.size())
      KILN_USER_ERROR() << n.describe() << ": operand " << k << " '" << letters << "' for input of shape "
                        << shape_str(v.shape);
    for (size_t d = 0; d < letters.size(); ++d) {
      const char c = letters[d];
      if (!std::isalpha(static_cast<unsigned char>(c)))
        KILN_USER_ERROR() << n.describe() << ": '" << c << "' in the equation '" << eq << "' is not a letter";
      auto [it, fresh] = spec.extents.emplace(c, v.shape[d]);
      if (!fresh && it->second != v.shape[d])
        KILN_USER_ERROR() << n.describe() << ": '" << c << "' has extents " << it->second << " and " << v.shape[d];
      ++uses[c];
    }
  }
  if (arrow != std::string::npos) {
    spec.output = eq.substr(arrow + 2);
    for (char c : spec.output)
      if (!spec.extents.count(c) || std::count(spec.output.begin(), spec.output.end(), c) != 1)
        KILN_USER_ERROR() << n.describe() << ": output letter '" << c << "' of '" << eq << "'";
  } else {
    for (const auto& [c, count] : uses)
      if (count == 1) spec.output += c;
  }
  return spec;
}

void einsum_rule(const Node& n, Graph& g) {
  const Value& first = required_input(g, n, 0);
  for (size_t k = 1; k < n.inputs.size(); ++k)
    if (required_input(g, n, k).dtype != first.dtype) KILN_USER_ERROR() << n.describe() << ": operands of differing types";
  if (first.dtype.is_bool()) KILN_UNSUPPORTED() << n.describe() << ": an Einsum of bool";
  const EinsumSpec spec = einsum_spec(g, n);
  Shape out;
  for (char c : spec.output) out.push_back(spec.extents.at(c));
  set_output(g, n, 0, first.dtype, out);
}

te::Tensor einsum(const Graph& g, const Node& n, const Tensors& in) {
  const EinsumSpec spec = einsum_spec(g, n);
  std::map<char, Expr> index;
  std::vector<IterVar> summed;
  for (const auto& [c, extent] : spec.extents)
    if (spec.output.find(c) == std::string::npos) {
      summed.push_back(te::reduce_axis(Range(i32(0), i32(extent)), std::string("r") + c));
      index[c] = summed.back().var();
    }
  return te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        for (size_t d = 0; d < spec.output.size(); ++d) index[spec.output[d]] = i[d];
        Expr product;
        for (size_t k = 0; k < spec.operands.size(); ++k) {
          std::vector<Expr> at;
          for (char c : spec.operands[k]) at.push_back(index.at(c));
          const Expr v = in.at(k)(at);
          product = product.defined() ? product * v : v;
        }
        return summed.empty() ? product : te::sum(product, summed);
      },
      "einsum");
}

}  // namespace

std::vector<OpDef> nn_ops() {
  return {
      {"Conv", "1-D to 3-D convolution: groups (depthwise), strides, pads or auto_pad, dilations, optional bias",
       OpPattern::kAnchor, conv_rule, one_output(conv)},
      {"Gemm", "alpha * A' * B' + beta * C, A and B optionally transposed", OpPattern::kAnchor, gemm_rule,
       one_output(gemm)},
      {"MatMul", "numpy matmul: batched, broadcast, vectors", OpPattern::kAnchor, matmul_rule, one_output(matmul)},
      {"MatMulInteger", "numpy matmul of int8/uint8 less their zero points, in int32", OpPattern::kAnchor, matmul_rule,
       one_output(matmul)},
      {"ConvTranspose", "1-D to 3-D transposed convolution: groups, strides, pads, output_padding, output_shape, dilations",
       OpPattern::kAnchor, conv_transpose_rule, one_output(conv_transpose)},
      {"Einsum", "products summed over the letters the output does not name (no ellipsis)", OpPattern::kAnchor,
       einsum_rule, one_output(einsum)},
      {"BatchNormalization", "inference: (x - mean) / sqrt(var + epsilon) * scale + B per channel",
       OpPattern::kElementwise, batch_norm_rule, one_output(batch_norm)},
      {"MaxPool", "1-D to 3-D max pooling: strides, pads or auto_pad, dilations, ceil_mode", OpPattern::kReduction,
       pool_rule, one_output(pool)},
      {"AveragePool", "1-D to 3-D average pooling: strides, pads or auto_pad, ceil_mode, count_include_pad",
       OpPattern::kReduction, pool_rule, one_output(pool)},
  };
}

}  // namespace kiln::graph::operators
