#include "graph/lower.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "core/error.h"
#include "graph/data_rules.h"
#include "graph/layout.h"
#include "graph/shape_util.h"
#include "graph/unsupported.h"
#include "ops/blocked.h"
#include "ops/broadcast.h"
#include "ops/common.h"
#include "ops/conv2d.h"
#include "ops/layer_norm.h"
#include "ops/matmul.h"
#include "ops/pad.h"
#include "ops/pool.h"
#include "ops/softmax.h"
#include "ops/transform.h"

namespace kiln::graph {
namespace {

using ops::i32;
using ops::i32s;
using Tensors = std::vector<te::Tensor>;
using Shape = std::vector<int64_t>;

const Shape& out_shape(const Graph& g, const Node& n, size_t i = 0) { return g.value(n.outputs.at(i)).shape; }

[[noreturn]] void not_yet(const Node& n, const std::string& what) {
  KILN_UNSUPPORTED() << n.describe() << ": " << what << " is not supported yet";
}

// A unary elementwise operator: one stage named after the op, lower case.
te::Tensor unary(const te::Tensor& x, const std::string& op) {
  static const std::map<std::string, Intrinsic> calls = {
      {"Sigmoid", Intrinsic::sigmoid}, {"Tanh", Intrinsic::tanh}, {"Erf", Intrinsic::erf}, {"Sqrt", Intrinsic::sqrt}};
  if (op == "Relu") return ops::map(x, [&](Expr v) { return max(v, make_zero(x.dtype())); }, "relu");
  if (op == "Identity" || op == "Dropout") return ops::map(x, [](Expr v) { return v; }, "identity");
  const Intrinsic f = calls.at(op);
  std::string name = op;
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return ops::map(x, [&](Expr v) { return call(f, {v}); }, name);
}

te::Tensor binary(const Node& n, const te::Tensor& a, const te::Tensor& b) {
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

te::Tensor clip(const Graph& g, const Node& n, const te::Tensor& x) {
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

// y = (x - mean[c]) * scale[c] / sqrt(var[c] + epsilon) + B[c], c axis 1.
te::Tensor batch_norm(const Node& n, const Tensors& in) {
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

te::Tensor reduce_mean(const Graph& g, const Node& n, const te::Tensor& x) {
  const Shape& in = required_input(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  std::vector<bool> reduced(in.size(), axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(shape_axis(n, a, rank))] = true;
  return mean_over(x, in, reduced, out_shape(g, n), "reduce_mean");
}

te::Tensor global_average_pool(const Graph& g, const Node& n, const te::Tensor& x) {
  const Shape& in = required_input(g, n, 0).shape;
  std::vector<bool> reduced(in.size(), true);
  reduced[0] = reduced[1] = false;
  return mean_over(x, in, reduced, out_shape(g, n), "global_avg_pool");
}

// Softmax over the axes from `axis` on, as one axis: before opset 13 the
// input is read as a matrix around `axis`; since, `axis` alone.
te::Tensor softmax(const Graph& g, const Node& n, const te::Tensor& x) {
  const Shape& in = required_input(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = normalized_axis(n, n.attr_int("axis", g.opset >= 13 ? -1 : 1), rank);
  if (g.opset >= 13 && axis != rank - 1) {
    // Moved last, normalised, moved back.
    Shape perm(static_cast<size_t>(rank)), back(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[static_cast<size_t>(axis)], perm.back());
    te::Tensor last = ops::transpose(x, perm);
    Shape moved;
    for (int64_t p : perm) moved.push_back(in[static_cast<size_t>(p)]);
    const int64_t cols = moved.back();
    const int64_t rows = std::accumulate(moved.begin(), moved.end() - 1, int64_t{1}, std::multiplies<>());
    te::Tensor s = ops::softmax(ops::reshape(last, {rows, cols}));
    return ops::transpose(ops::reshape(s, moved), perm);
  }
  const int64_t rows = std::accumulate(in.begin(), in.begin() + axis, int64_t{1}, std::multiplies<>());
  const int64_t cols = std::accumulate(in.begin() + axis, in.end(), int64_t{1}, std::multiplies<>());
  if (rank == 2 && axis == 1) return ops::softmax(x);
  return ops::reshape(ops::softmax(ops::reshape(x, {rows, cols})), in);
}

// LayerNormalization: the matrix form of ops/ over the axes from `axis`
// on, and the Mean and InvStdDev outputs (normalized axes of extent 1).
Tensors layer_norm(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const int64_t axis = normalized_axis(n, n.attr_int("axis", -1), static_cast<int64_t>(shape.size()));
  const int64_t rows = std::accumulate(shape.begin(), shape.begin() + axis, int64_t{1}, std::multiplies<>());
  const int64_t cols = std::accumulate(shape.begin() + axis, shape.end(), int64_t{1}, std::multiplies<>());
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
  return {ops::reshape(p.out, shape), ops::reshape(p.mean, stats, "ln_mean_out"),
          ops::reshape(p.rstd, stats, "ln_rstd_out")};
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

// The blocked convolutions of graph/layout.h: data [N, C/cb, H, W, cb],
// weights as ops/blocked.h has them, the bias [K/kb, kb].
te::Tensor conv_nchwc(const Graph& g, const Node& n, const Tensors& in) {
  const Value& x = required_input(g, n, 0);
  const Shape spatial{x.shape.at(2), x.shape.at(3)};
  const Shape kernel = n.attr_ints("kernel_shape", {});
  const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
  const Shape pads = window_pads(n, spatial, kernel, strides, dilations);
  ops::Conv2dConfig cfg;
  cfg.stride = strides.at(0);
  cfg.dilation = dilations.at(0);
  te::Tensor data = in[0];
  if (pads[0] == pads[1] && pads[1] == pads[2] && pads[2] == pads[3])
    cfg.pad = pads[0];
  else
    data = ops::pad(in[0], {0, 0, pads[0], pads[1], 0}, {0, 0, pads[2], pads[3], 0}, make_zero(x.dtype));
  te::Tensor y = n.op == kConvNCHWc ? ops::conv2d_nchwc(data, in[1], cfg) : ops::depthwise_conv2d_nchwc(data, in[1], cfg);
  if (!g.input(n, 2)) return y;
  const te::Tensor& bias = in[2];
  return te::compute(
      y.shape(), [&](Var b, Var k, Var p, Var q, Var c) { return y(b, k, p, q, c) + bias(k, c); }, "bias_add");
}

// graph/layout.h's blocked MaxPool: its window is one ops/pool.h takes.
te::Tensor max_pool_nchwc(const Node& n, const te::Tensor& x) {
  const Shape kernel = n.attr_ints("kernel_shape", {});
  return ops::max_pool2d_nchwc(x, {kernel.at(0), kernel.at(1), n.attr_ints("strides", {1, 1}).at(0),
                                   n.attr_ints("pads", {0, 0, 0, 0}).at(0)});
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

te::Tensor pool(const Graph& g, const Node& n, const te::Tensor& x) {
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

// Pad: constant (ops/pad.h), or "edge" (the nearest element) and "reflect"
// (mirrored about the first and last element, which are not repeated):
// each output index maps to an input index, per axis.
te::Tensor pad(const Graph& g, const Node& n, const te::Tensor& x) {
  const PadSpec spec = pad_spec(g, n);
  const size_t rank = spec.pads.size() / 2;
  Shape before(spec.pads.begin(), spec.pads.begin() + static_cast<int64_t>(rank));
  Shape after(spec.pads.begin() + static_cast<int64_t>(rank), spec.pads.end());
  for (size_t d = 0; d < rank; ++d)
    if (before[d] < 0 || after[d] < 0) not_yet(n, "negative pads");
  if (spec.mode == "constant") return ops::pad(x, before, after, make_const(x.dtype(), spec.value));
  if (spec.mode != "edge" && spec.mode != "reflect") not_yet(n, "pad mode '" + spec.mode + "'");
  const Shape in = required_input(g, n, 0).shape;
  const bool reflect = spec.mode == "reflect";
  for (size_t d = 0; d < rank; ++d)
    if (reflect && (before[d] >= in[d] || after[d] >= in[d]) && (before[d] > 0 || after[d] > 0))
      KILN_USER_ERROR() << n.describe() << ": reflect padding of " << before[d] << " and " << after[d]
                        << " along axis " << d << " of extent " << in[d] << " (each must be smaller)";
  return te::compute(
      i32s(g.value(n.outputs[0]).shape),
      [&](const std::vector<Var>& idx) {
        std::vector<Expr> src;
        for (size_t d = 0; d < rank; ++d) {
          Expr i = before[d] == 0 ? Expr(idx[d]) : idx[d] - i32(before[d]);
          const Expr last = i32(in[d] - 1);
          if (reflect) {
            // -i before the start, 2 (n - 1) - i past the end.
            if (before[d] > 0) i = select(lt(i, i32(0)), i32(0) - i, i);
            if (after[d] > 0) i = select(lt(last, i), last + last - i, i);
          } else {
            if (before[d] > 0) i = max(i, i32(0));
            if (after[d] > 0) i = min(i, last);
          }
          src.push_back(i);
        }
        return x(src);
      },
      spec.mode + "_pad");
}

}  // namespace

bool is_parameter_input(const std::string& op, size_t i) {
  // The first input each operator reads as a parameter; those after it too.
  static const std::map<std::string, size_t> from = {{"Reshape", 1},   {"Slice", 1}, {"Pad", 1},
                                                     {"Squeeze", 1},   {"Unsqueeze", 1}, {"Clip", 1},
                                                     {"Gather", 1},    {"ConstantOfShape", 0}, {"Dropout", 1}};
  auto it = from.find(op);
  return it != from.end() && i >= it->second;
}

bool is_lowered(const Node& n) {
  return n.op != "Constant" && n.op != "Shape" && n.op != "ConstantOfShape";
}

std::vector<te::Tensor> lower_node(const Graph& g, const Node& n, const std::vector<te::Tensor>& in) {
  if (n.outputs.size() > 1 && n.op != "LayerNormalization" && n.op != "Dropout" && n.op != "BatchNormalization" &&
      n.op != "MaxPool")
    not_yet(n, "more than one output");
  const std::string& op = n.op;
  if (op == "LayerNormalization") {
    Tensors parts = layer_norm(g, n, in);
    parts.resize(n.outputs.size());
    return parts;
  }
  if (op == "Dropout" && n.outputs.size() > 1) {  // inference: everything kept, the mask all true
    const te::Tensor kept = ops::map(in.at(0), [](Expr v) { return v; }, "identity");
    const te::Tensor mask = ops::map(in.at(0), [](Expr) { return make_const(DataType::Bool(), 1); }, "dropout_mask");
    return {kept, mask};
  }
  te::Tensor y;
  if (op == "Relu" || op == "Sigmoid" || op == "Tanh" || op == "Erf" || op == "Sqrt" || op == "Identity" ||
      op == "Dropout")
    y = unary(in.at(0), op);
  else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow")
    y = binary(n, in.at(0), in.at(1));
  else if (op == "Clip")
    y = clip(g, n, in.at(0));
  else if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze")
    y = ops::reshape(in.at(0), out_shape(g, n), "reshape");
  else if (op == "Transpose") {
    const int64_t rank = in.at(0).ndim();
    Shape perm(static_cast<size_t>(rank));
    for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
    y = ops::transpose(in.at(0), n.attr_ints("perm", perm));
  } else if (op == "Concat")
    y = ops::concat(in, normalized_axis(n, n.attr_int("axis", 0), in.at(0).ndim()));
  else if (op == "Slice") {
    const SliceSpec spec = slice_spec(g, n);
    Shape start, step, count;
    for (const SliceSpec::Axis& a : spec.axes) {
      start.push_back(a.start);
      step.push_back(a.step);
      count.push_back(a.count);
    }
    y = ops::strided_slice(in.at(0), start, step, count);
  } else if (op == "Gather") {
    const Value& idx = required_input(g, n, 1);
    y = ops::take(in.at(0), ints_of(*idx.data), idx.shape,
                  normalized_axis(n, n.attr_int("axis", 0), in.at(0).ndim()), "gather");
  } else if (op == "Pad")
    y = pad(g, n, in.at(0));
  else if (op == "BatchNormalization")
    y = batch_norm(n, in);
  else if (op == "ReduceMean")
    y = reduce_mean(g, n, in.at(0));
  else if (op == "GlobalAveragePool")
    y = global_average_pool(g, n, in.at(0));
  else if (op == "Softmax")
    y = softmax(g, n, in.at(0));
  else if (op == "Gemm")
    y = gemm(g, n, in);
  else if (op == "MatMul")
    y = matmul(g, n, in);
  else if (op == "Conv")
    y = conv(g, n, in);
  else if (op == kConvNCHWc || op == kDepthwiseConvNCHWc)
    y = conv_nchwc(g, n, in);
  else if (op == kMaxPoolNCHWc)
    y = max_pool_nchwc(n, in.at(0));
  else if (op == kToNCHWc)
    y = ops::to_nchwc(in.at(0), n.attr_int("block", 1));
  else if (op == kFromNCHWc)
    y = ops::from_nchwc(in.at(0));
  else if (op == "MaxPool" || op == "AveragePool")
    y = pool(g, n, in.at(0));
  else
    KILN_USER_ERROR() << n.describe() << ": has no compute definition (it folds at import)";
  return {y};
}

}  // namespace kiln::graph
