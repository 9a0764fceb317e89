#include "graph/op_table.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "graph/data_rules.h"
#include "graph/lower.h"
#include "graph/reference.h"
#include "graph/shape_util.h"
#include "graph/unsupported.h"
#include "ops/window.h"

namespace kiln::graph {
namespace {

using Shape = std::vector<int64_t>;

int64_t product(const Shape& s, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i) p *= s[i];
  return p;
}

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

void require_float(const Node& n, const Value& v) {
  if (!v.dtype.is_float())
    KILN_UNSUPPORTED() << n.describe() << ": input '" << v.name << "' is " << v.dtype.str()
                      << "; other than floating-point tensors are not supported";
}

void require_rank(const Node& n, const Value& v, size_t rank) {
  if (v.shape.size() != rank)
    KILN_UNSUPPORTED() << n.describe() << ": input '" << v.name << "' has shape " << shape_str(v.shape)
                      << "; ranks other than " << rank << " are not supported yet";
}

// Same dtype and shape as input 0.
void same_as_input(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  set_output(g, n, 0, x.dtype, x.shape);
}

void unary_float(const Node& n, Graph& g) {
  require_float(n, required_input(g, n, 0));
  same_as_input(n, g);
}

void binary_broadcast(const Node& n, Graph& g) {
  const Value& a = required_input(g, n, 0);
  const Value& b = required_input(g, n, 1);
  // Pow's exponent may be of another type; the others take one type.
  if (n.op != "Pow" && a.dtype != b.dtype)
    KILN_USER_ERROR() << n.describe() << ": inputs of " << a.dtype.str() << " and " << b.dtype.str();
  set_output(g, n, 0, a.dtype, broadcast_shapes(n, a.shape, b.shape));
}

void dropout(const Node& n, Graph& g) {
  const Value* training = g.input(n, 2);
  if (training && (!training->is_constant() || training->data->get(0) != 0))
    KILN_UNSUPPORTED() << n.describe() << ": training mode is not supported (inference only)";
  same_as_input(n, g);
  if (n.outputs.size() > 1 && n.outputs[1] != Node::kNone)
    set_output(g, n, 1, DataType::Bool(), required_input(g, n, 0).shape);
}

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

void conv(const Node& n, Graph& g) {
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

void pool(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  require_rank(n, x, 4);
  if (!n.has_attr("kernel_shape")) KILN_USER_ERROR() << n.describe() << ": kernel_shape is required";
  if (n.outputs.size() > 1 && n.outputs[1] != Node::kNone)
    KILN_UNSUPPORTED() << n.describe() << ": the Indices output is not supported";
  const Window w = window_of(n, x, n.attr_ints("kernel_shape", {}));
  set_output(g, n, 0, x.dtype, window_shape(n, x, x.shape[1], w, n.attr_int("ceil_mode", 0) != 0));
}

void global_average_pool(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (x.shape.size() < 3) require_rank(n, x, 4);
  Shape out = x.shape;
  std::fill(out.begin() + 2, out.end(), 1);
  set_output(g, n, 0, x.dtype, out);
}

void gemm(const Node& n, Graph& g) {
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

void matmul(const Node& n, Graph& g) {
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

void batch_norm(const Node& n, Graph& g) {
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

void clip(const Node& n, Graph& g) {
  for (size_t i = 1; i < 3; ++i)
    if (const Value* bound = g.input(n, i); bound && !bound->shape.empty() && bound->numel() != 1)
      KILN_USER_ERROR() << n.describe() << ": its bounds must be scalars";
  same_as_input(n, g);
}

void softmax(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  normalized_axis(n, n.attr_int("axis", g.opset >= 13 ? -1 : 1), static_cast<int64_t>(x.shape.size()));
  same_as_input(n, g);
}

void layer_norm(const Node& n, Graph& g) {
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

void reduce_mean(const Node& n, Graph& g) {
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

void reshape(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  Shape shape = constant_ints(g, n, 1, "shape");
  const bool allow_zero = n.attr_int("allowzero", 0) != 0;
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (i >= x.shape.size()) KILN_USER_ERROR() << n.describe() << ": a 0 in the shape past the input's rank";
      shape[i] = x.shape[i];
    }
    if (shape[i] == -1) {
      if (inferred >= 0) KILN_USER_ERROR() << n.describe() << ": more than one -1 in the shape";
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      KILN_USER_ERROR() << n.describe() << ": a negative extent " << shape[i] << " in the shape";
    } else {
      if (shape[i] > 0 && known > kMaxElements / shape[i])
        KILN_USER_ERROR() << n.describe() << ": the shape " << shape_str(constant_ints(g, n, 1, "shape"))
                          << " has more elements than kiln holds";
      known *= shape[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known)
      KILN_USER_ERROR() << n.describe() << ": cannot reshape " << shape_str(x.shape) << " to "
                        << shape_str(constant_ints(g, n, 1, "shape"));
    shape[static_cast<size_t>(inferred)] = x.numel() / known;
  }
  if (product(shape) != x.numel())
    KILN_USER_ERROR() << n.describe() << ": cannot reshape " << shape_str(x.shape) << " ("
                      << x.numel() << " elements) to " << shape_str(shape);
  set_output(g, n, 0, x.dtype, shape);
}

void transpose(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  Shape perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
  perm = n.attr_ints("perm", perm);
  Shape sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  // The length first: a scalar's perm of one axis passed the loop below
  // unchecked, and indexed its empty shape.
  bool permutation = sorted.size() == static_cast<size_t>(rank);
  for (int64_t i = 0; permutation && i < rank; ++i) permutation = sorted[static_cast<size_t>(i)] == i;
  if (!permutation)
    KILN_USER_ERROR() << n.describe() << ": perm " << shape_str(perm) << " is not a permutation of " << rank << " axes";
  Shape out;
  for (int64_t p : perm) out.push_back(x.shape[static_cast<size_t>(p)]);
  set_output(g, n, 0, x.dtype, out);
}

void flatten(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 1);
  if (axis < -rank || axis > rank) KILN_USER_ERROR() << n.describe() << ": axis " << axis << " is out of range";
  if (axis < 0) axis += rank;
  set_output(g, n, 0, x.dtype, {product(x.shape, 0, static_cast<size_t>(axis)), product(x.shape, static_cast<size_t>(axis))});
}

// Squeeze's and Unsqueeze's axes: an attribute before opset 13, an input since.
std::vector<int64_t> axes_of(const Graph& g, const Node& n) {
  if (n.has_attr("axes")) return n.attr_ints("axes", {});
  if (g.input(n, 1)) return constant_ints(g, n, 1, "axes");
  return {};
}

void squeeze(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes = axes_of(g, n);
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int64_t d = shape_axis(n, a, rank);
    if (x.shape[static_cast<size_t>(d)] != 1)
      KILN_USER_ERROR() << n.describe() << ": axis " << a << " has extent " << x.shape[static_cast<size_t>(d)] << ", not 1";
    drop[static_cast<size_t>(d)] = true;
  }
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    const bool gone = axes.empty() ? x.shape[static_cast<size_t>(d)] == 1 : drop[static_cast<size_t>(d)];
    if (!gone) out.push_back(x.shape[static_cast<size_t>(d)]);
  }
  set_output(g, n, 0, x.dtype, out);
}

void unsqueeze(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const std::vector<int64_t> axes = axes_of(g, n);
  const int64_t rank = static_cast<int64_t>(x.shape.size() + axes.size());
  std::vector<bool> added(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int64_t d = normalized_axis(n, a, rank);
    if (added[static_cast<size_t>(d)]) KILN_USER_ERROR() << n.describe() << ": axis " << a << " is given twice";
    added[static_cast<size_t>(d)] = true;
  }
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(added[static_cast<size_t>(d)] ? 1 : x.shape[next++]);
  set_output(g, n, 0, x.dtype, out);
}

void concat(const Node& n, Graph& g) {
  const Value& first = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(first.shape.size());
  const int64_t axis = shape_axis(n, n.attr_int("axis", 0), rank);
  Shape out = first.shape;
  out[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value& v = required_input(g, n, i);
    Shape a = v.shape, b = first.shape;
    if (a.size() == b.size()) a[static_cast<size_t>(axis)] = b[static_cast<size_t>(axis)] = 0;
    if (a != b || v.dtype != first.dtype)
      KILN_USER_ERROR() << n.describe() << ": input '" << v.name << "' " << type_str(v) << " does not join "
                        << type_str(first) << " along axis " << axis;
    out[static_cast<size_t>(axis)] += v.shape[static_cast<size_t>(axis)];
  }
  set_output(g, n, 0, first.dtype, out);
}

}  // namespace

const std::vector<OpDef>& op_table() {
  static const std::vector<OpDef> table = {
      {"Conv", "2-D convolution: groups (depthwise), strides, pads or auto_pad, dilations, optional bias", conv},
      {"Gemm", "alpha * A' * B' + beta * C, A and B optionally transposed", gemm},
      {"MatMul", "numpy matmul: batched, broadcast, vectors", matmul},
      {"BatchNormalization", "inference: (x - mean) / sqrt(var + epsilon) * scale + B per channel", batch_norm},
      {"Relu", "max(x, 0)", unary_float},
      {"Clip", "min(max(x, min), max); bounds as attributes (opset < 11) or inputs", clip},
      {"Sigmoid", "1 / (1 + exp(-x))", unary_float},
      {"Tanh", "tanh(x)", unary_float},
      {"Erf", "the error function", unary_float},
      {"Sqrt", "sqrt(x)", unary_float},
      {"Add", "a + b, broadcast", binary_broadcast},
      {"Sub", "a - b, broadcast", binary_broadcast},
      {"Mul", "a * b, broadcast", binary_broadcast},
      {"Div", "a / b, broadcast", binary_broadcast},
      {"Pow", "a ^ b, broadcast", binary_broadcast},
      {"MaxPool", "2-D max pooling: strides, pads or auto_pad, dilations, ceil_mode", pool},
      {"AveragePool", "2-D average pooling: strides, pads or auto_pad, ceil_mode, count_include_pad", pool},
      {"GlobalAveragePool", "the mean over every spatial axis", global_average_pool},
      {"Softmax", "exp(x) / sum(exp(x)) along axis (before opset 13, over the axes from it on)", softmax},
      {"LayerNormalization", "(x - mean) / sqrt(var + epsilon) * Scale + B over the axes from axis on", layer_norm},
      {"ReduceMean", "the mean over axes (an attribute up to opset 17), keepdims", reduce_mean},
      {"Reshape", "to a constant shape (0 copies an extent, -1 infers one)", reshape},
      {"Transpose", "permutes axes (perm, reversed by default)", transpose},
      {"Flatten", "to 2-D around axis", flatten},
      {"Squeeze", "drops axes of extent 1 (axes an attribute before opset 13, an input since)", squeeze},
      {"Unsqueeze", "inserts axes of extent 1", unsqueeze},
      {"Concat", "joins along axis", concat},
      {"Slice", "constant starts, ends, axes, steps (attributes before opset 10)", slice},
      {"Pad", "constant, reflect or edge padding by constant pads", pad},
      {"Gather", "takes constant indices along axis", gather},
      {"Constant", "a constant tensor (value, value_float(s), value_int(s))", constant},
      {"Identity", "x", same_as_input},
      {"Dropout", "x (inference)", dropout},
      {"Shape", "the input's shape, folded to a constant (start and end since opset 15)", shape},
      {"ConstantOfShape", "a tensor of one value, folded to a constant", constant_of_shape},
  };
  return table;
}

const OpDef* find_op_def(const std::string& op) {
  for (const OpDef& d : op_table())
    if (d.name == op) return &d;
  return nullptr;
}

namespace {

// A node whose inputs are all constants computes a constant: evaluated
// now (graph/reference.h), so that the shapes after it are known (the
// Shape -> Gather -> Concat -> Reshape chains of exported models).
// Past `max_steps` (ImportOptions::max_fold_steps) the node is left to
// run compiled.
void fold_if_constant(const Node& n, Graph& g, double max_steps) {
  if (!is_lowered(n)) return;
  std::vector<const NDArray*> in;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value* v = g.input(n, i);
    if (v && !v->is_constant()) return;
    in.push_back(v ? v->data.get() : nullptr);
  }
  if (in.empty()) return;
  std::optional<std::vector<NDArray>> out = evaluate_node_within(g, n, in, max_steps);
  if (!out) return;
  for (size_t i = 0; i < out->size(); ++i)
    if (n.outputs[i] != Node::kNone) set_constant_output(g, n, i, std::move((*out)[i]));
}

}  // namespace

void infer_shapes(Graph& g, double max_fold_steps) {
  for (const Node& n : g.nodes) {
    const OpDef* def = find_op_def(n.op);
    if (!def)
      KILN_UNSUPPORTED() << n.describe() << ": operator '" << n.op << "' (opset " << g.opset
                        << ") is not supported; `kiln graph --ops` lists those that are";
    def->infer(n, g);
    fold_if_constant(n, g, max_fold_steps);
  }
}

}  // namespace kiln::graph
