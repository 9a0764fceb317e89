// Data movement: operators that only index (reshapes, Transpose, Concat,
// Slice, Pad, Gather on constant indices). Fusion treats them as
// injective: they join chains, and a schedule inlines them into their
// reader.
#include <algorithm>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/onnx_import.h"
#include "ops/broadcast.h"
#include "ops/common.h"
#include "ops/pad.h"
#include "ops/transform.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

// What a Slice node takes along each axis of its input (every axis, those
// it does not slice as {0, 1, extent}): out[i] = in[start + i * step].
struct SliceSpec {
  struct Axis {
    int64_t start, step, count;
  };
  std::vector<Axis> axes;
};

// What a Pad node adds: pads {b1, ..., bn, e1, ..., en} (negative ones
// crop), the mode ("constant", "reflect", "edge") and the constant.
struct PadSpec {
  Shape pads;
  std::string mode;
  double value = 0.0;
};

SliceSpec slice_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  Shape starts, ends, axes, steps;
  if (n.has_attr("starts")) {  // opset 1
    starts = n.attr_ints("starts", {});
    ends = n.attr_ints("ends", {});
    axes = n.attr_ints("axes", {});
  } else {
    starts = constant_ints(g, n, 1, "starts");
    ends = constant_ints(g, n, 2, "ends");
    if (g.input(n, 3)) axes = constant_ints(g, n, 3, "axes");
    if (g.input(n, 4)) steps = constant_ints(g, n, 4, "steps");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    KILN_USER_ERROR() << n.describe() << ": starts, ends, axes and steps differ in length";
  SliceSpec spec;
  for (int64_t d = 0; d < rank; ++d) spec.axes.push_back({0, 1, x.shape[static_cast<size_t>(d)]});
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = shape_axis(n, axes[i], rank);
    const int64_t dim = x.shape[static_cast<size_t>(axis)];
    const int64_t step = steps[i];
    if (step == 0) KILN_USER_ERROR() << n.describe() << ": a step of 0";
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 && ends[i] > INT64_MIN / 2 ? ends[i] + dim : ends[i];
    int64_t count;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      count = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      count = start > end ? (start - end - step - 1) / -step : 0;
    }
    spec.axes[static_cast<size_t>(axis)] = {start, step, count};
  }
  return spec;
}

void slice_rule(const Node& n, Graph& g) {
  const SliceSpec spec = slice_spec(g, n);
  Shape out;
  for (const SliceSpec::Axis& a : spec.axes) out.push_back(a.count);
  set_output(g, n, 0, required_input(g, n, 0).dtype, out);
}

PadSpec pad_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  PadSpec spec;
  spec.mode = n.attr_string("mode", "constant");
  if (spec.mode != "constant" && spec.mode != "reflect" && spec.mode != "edge")
    KILN_USER_ERROR() << n.describe() << ": unknown mode '" << spec.mode << "'";
  if (n.has_attr("pads")) {  // opset 2
    spec.pads = n.attr_ints("pads", {});
    spec.value = n.attr_float("value", 0.0);
  } else {
    spec.pads = constant_ints(g, n, 1, "pads");
    if (const Value* v = g.input(n, 2)) {
      if (!v->is_constant()) KILN_UNSUPPORTED() << n.describe() << ": its constant_value must be a constant";
      if (v->numel() != 1) KILN_USER_ERROR() << n.describe() << ": its constant_value must be one value";
      spec.value = v->data->get(0);
    }
  }
  if (spec.pads.size() != 2 * x.shape.size())
    KILN_USER_ERROR() << n.describe() << ": " << spec.pads.size() << " pads for rank " << x.shape.size();
  return spec;
}

void pad_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const PadSpec spec = pad_spec(g, n);
  const size_t rank = x.shape.size();
  Shape out;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t e = x.shape[d] + spec.pads[d] + spec.pads[d + rank];
    if (e < 0) KILN_USER_ERROR() << n.describe() << ": the pads leave axis " << d << " a negative extent";
    if (spec.mode == "reflect" && (spec.pads[d] >= x.shape[d] || spec.pads[d + rank] >= x.shape[d]))
      KILN_USER_ERROR() << n.describe() << ": reflect pads of axis " << d << " reach past its extent " << x.shape[d];
    out.push_back(e);
  }
  set_output(g, n, 0, x.dtype, out);
}

// Pad: constant (ops/pad.h), or "edge" (the nearest element) and "reflect"
// (mirrored about the first and last element, which are not repeated):
// each output index maps to an input index, per axis.
te::Tensor pad(const Graph& g, const Node& n, const Tensors& inputs) {
  const te::Tensor& x = inputs.at(0);
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

void gather_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& idx = required_input(g, n, 1);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = shape_axis(n, n.attr_int("axis", 0), rank);
  if (!idx.dtype.is_int()) KILN_USER_ERROR() << n.describe() << ": indices of " << idx.dtype.str();
  const int64_t dim = x.shape[static_cast<size_t>(axis)];
  if (idx.is_constant())
    for (int64_t i : ints_of(*idx.data))
      if (i < -dim || i >= dim) KILN_USER_ERROR() << n.describe() << ": index " << i << " is out of range for extent " << dim;
  Shape out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  set_output(g, n, 0, x.dtype, out);
}

void reshape_rule(const Node& n, Graph& g) {
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

void transpose_rule(const Node& n, Graph& g) {
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

void flatten_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 1);
  if (axis < -rank || axis > rank) KILN_USER_ERROR() << n.describe() << ": axis " << axis << " is out of range";
  if (axis < 0) axis += rank;
  set_output(g, n, 0, x.dtype, {product(x.shape, 0, static_cast<size_t>(axis)), product(x.shape, static_cast<size_t>(axis))});
}

// Squeeze's and Unsqueeze's axes: an attribute before opset 13, an input since.
Shape axes_of(const Graph& g, const Node& n) {
  if (n.has_attr("axes")) return n.attr_ints("axes", {});
  if (g.input(n, 1)) return constant_ints(g, n, 1, "axes");
  return {};
}

void squeeze_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  Shape axes = axes_of(g, n);
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

void unsqueeze_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Shape axes = axes_of(g, n);
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

void concat_rule(const Node& n, Graph& g) {
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

te::Tensor reshape(const Graph& g, const Node& n, const Tensors& in) {
  return ops::reshape(in.at(0), out_shape(g, n), "reshape");
}

te::Tensor transpose(const Graph&, const Node& n, const Tensors& in) {
  const int64_t rank = in.at(0).ndim();
  Shape perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
  return ops::transpose(in.at(0), n.attr_ints("perm", perm));
}

te::Tensor concat(const Graph&, const Node& n, const Tensors& in) {
  return ops::concat(in, normalized_axis(n, n.attr_int("axis", 0), in.at(0).ndim()));
}

te::Tensor slice(const Graph& g, const Node& n, const Tensors& in) {
  const SliceSpec spec = slice_spec(g, n);
  Shape start, step, count;
  for (const SliceSpec::Axis& a : spec.axes) {
    start.push_back(a.start);
    step.push_back(a.step);
    count.push_back(a.count);
  }
  return ops::strided_slice(in.at(0), start, step, count);
}

// An index read at run time as an int32 index into an axis of extent
// `dim`: a negative one counts from the end, and one out of range is
// clamped into it (a compiled kernel cannot raise, and must not read
// outside its buffer; the reference executor gives the same).
Expr runtime_index(Expr v, int64_t dim) {
  const Expr i = cast(DataType::Int32(), v);
  return min(max(select(lt(i, i32(0)), i + i32(dim), i), i32(0)), i32(dim - 1));
}

// Gather: constant indices are taken by position (ops::take, which the
// analyses see through); indices computed at run time (token ids into an
// embedding table) are loaded.
te::Tensor gather(const Graph& g, const Node& n, const Tensors& in) {
  const Value& idx = required_input(g, n, 1);
  const size_t axis = static_cast<size_t>(normalized_axis(n, n.attr_int("axis", 0), in.at(0).ndim()));
  if (idx.is_constant()) return ops::take(in.at(0), ints_of(*idx.data), idx.shape, static_cast<int64_t>(axis), "gather");
  const te::Tensor &x = in.at(0), &indices = in.at(1);
  const int64_t dim = required_input(g, n, 0).shape[axis];
  const size_t q = idx.shape.size();
  return te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> src(i.begin(), i.begin() + static_cast<int64_t>(axis));
        src.push_back(runtime_index(indices(std::vector<Expr>(i.begin() + static_cast<int64_t>(axis),
                                                              i.begin() + static_cast<int64_t>(axis + q))),
                                    dim));
        src.insert(src.end(), i.begin() + static_cast<int64_t>(axis + q), i.end());
        return x(src);
      },
      "gather");
}

// GatherElements: out[i] = x[i with axis replaced by indices[i]].
void gather_elements_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& idx = required_input(g, n, 1);
  shape_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.shape.size()));
  if (!idx.dtype.is_int()) KILN_USER_ERROR() << n.describe() << ": indices of " << idx.dtype.str();
  if (idx.shape.size() != x.shape.size())
    KILN_USER_ERROR() << n.describe() << ": indices " << shape_str(idx.shape) << " and data " << shape_str(x.shape)
                      << " differ in rank";
  set_output(g, n, 0, x.dtype, idx.shape);
}

te::Tensor gather_elements(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const size_t axis = static_cast<size_t>(shape_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(shape.size())));
  const te::Tensor &x = in.at(0), &indices = in.at(1);
  return te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> src(i.begin(), i.end());
        src[axis] = runtime_index(indices(std::vector<Expr>(i.begin(), i.end())), shape[axis]);
        return x(src);
      },
      "gather_elements");
}

// GatherND: indices [..., k] pick x's first k axes (after batch_dims).
void gather_nd_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& idx = required_input(g, n, 1);
  const int64_t b = n.attr_int("batch_dims", 0);
  if (!idx.dtype.is_int()) KILN_USER_ERROR() << n.describe() << ": indices of " << idx.dtype.str();
  if (idx.shape.empty() || b < 0 || static_cast<size_t>(b) >= idx.shape.size() || static_cast<size_t>(b) > x.shape.size())
    KILN_USER_ERROR() << n.describe() << ": indices " << shape_str(idx.shape) << " with batch_dims " << b;
  const int64_t k = idx.shape.back();
  if (k < 1 || static_cast<size_t>(b + k) > x.shape.size())
    KILN_USER_ERROR() << n.describe() << ": index tuples of " << k << " into data " << shape_str(x.shape);
  for (int64_t d = 0; d < b; ++d)
    if (idx.shape[static_cast<size_t>(d)] != x.shape[static_cast<size_t>(d)])
      KILN_USER_ERROR() << n.describe() << ": batch axis " << d << " differs between data and indices";
  Shape out(idx.shape.begin(), idx.shape.end() - 1);
  out.insert(out.end(), x.shape.begin() + b + k, x.shape.end());
  set_output(g, n, 0, x.dtype, out);
}

te::Tensor gather_nd(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const Shape& ishape = required_input(g, n, 1).shape;
  const size_t b = static_cast<size_t>(n.attr_int("batch_dims", 0)), k = static_cast<size_t>(ishape.back());
  const size_t q = ishape.size() - 1;  // output axes from the indices
  const te::Tensor &x = in.at(0), &indices = in.at(1);
  return te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> src(i.begin(), i.begin() + static_cast<int64_t>(b));
        for (size_t j = 0; j < k; ++j) {
          std::vector<Expr> at(i.begin(), i.begin() + static_cast<int64_t>(q));
          at.push_back(i32(static_cast<int64_t>(j)));
          src.push_back(runtime_index(indices(at), shape[b + j]));
        }
        src.insert(src.end(), i.begin() + static_cast<int64_t>(q), i.end());
        return x(src);
      },
      "gather_nd");
}

// Split: the parts along `axis`, of the sizes `split` gives (an attribute
// before opset 13, an input since), or equal.
Shape split_sizes(const Graph& g, const Node& n, const Value& x, int64_t axis) {
  const int64_t dim = x.shape[static_cast<size_t>(axis)];
  const size_t parts = n.outputs.size();
  Shape sizes = n.attr_ints("split", {});
  if (!n.has_attr("split") && g.input(n, 1)) sizes = constant_ints(g, n, 1, "split");
  if (sizes.empty()) {
    if (parts == 0 || dim % static_cast<int64_t>(parts))
      KILN_USER_ERROR() << n.describe() << ": extent " << dim << " does not split into " << parts << " equal parts";
    sizes.assign(parts, dim / static_cast<int64_t>(parts));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) KILN_USER_ERROR() << n.describe() << ": a negative split " << s;
    total += s;
  }
  if (sizes.size() != parts || total != dim)
    KILN_USER_ERROR() << n.describe() << ": split " << shape_str(sizes) << " does not cut extent " << dim << " into "
                      << parts << " outputs";
  return sizes;
}

void split_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t axis = shape_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.shape.size()));
  const Shape sizes = split_sizes(g, n, x, axis);
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape out = x.shape;
    out[static_cast<size_t>(axis)] = sizes[i];
    set_output(g, n, i, x.dtype, out);
  }
}

Tensors split(const Graph& g, const Node& n, const Tensors& in) {
  const Value& x = required_input(g, n, 0);
  const size_t axis = static_cast<size_t>(shape_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.shape.size())));
  const Shape sizes = split_sizes(g, n, x, static_cast<int64_t>(axis));
  Tensors outs;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape start(x.shape.size(), 0), step(x.shape.size(), 1), count = x.shape;
    start[axis] = offset;
    count[axis] = sizes[i];
    outs.push_back(ops::strided_slice(in.at(0), start, step, count, "split"));
    offset += sizes[i];
  }
  return outs;
}

// Expand: x broadcast to a constant shape (numpy's rule both ways).
void expand_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  set_output(g, n, 0, x.dtype, broadcast_shapes(n, x.shape, constant_ints(g, n, 1, "shape")));
}

te::Tensor expand(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  return te::compute(
      i32s(out_shape(g, n)), [&](const std::vector<Var>& i) { return ops::broadcast_load(x, i); }, "expand");
}

// Tile: x repeated `repeats` times along each axis.
void tile_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Shape repeats = constant_ints(g, n, 1, "repeats");
  if (repeats.size() != x.shape.size())
    KILN_USER_ERROR() << n.describe() << ": " << repeats.size() << " repeats for rank " << x.shape.size();
  Shape out;
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) KILN_USER_ERROR() << n.describe() << ": a negative repeat " << repeats[d];
    out.push_back(x.shape[d] * repeats[d]);
  }
  set_output(g, n, 0, x.dtype, out);
}

te::Tensor tile(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const te::Tensor& x = in.at(0);
  return te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> src;
        for (size_t d = 0; d < shape.size(); ++d) src.push_back(shape[d] == 1 ? Expr(i32(0)) : floormod(i[d], i32(shape[d])));
        return x(src);
      },
      "tile");
}

// Trilu: the upper (or lower) triangle of the last two axes from diagonal
// k (an optional constant input), the rest 0.
void trilu_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (x.shape.size() < 2) KILN_USER_ERROR() << n.describe() << ": input of rank " << x.shape.size() << ", not 2 or more";
  if (g.input(n, 1) && constant_ints(g, n, 1, "k").size() != 1) KILN_USER_ERROR() << n.describe() << ": k must be one value";
  same_as_input(n, g);
}

te::Tensor trilu(const Graph& g, const Node& n, const Tensors& in) {
  const int64_t k = g.input(n, 1) ? constant_ints(g, n, 1, "k")[0] : 0;
  const bool upper = n.attr_int("upper", 1) != 0;
  const te::Tensor& x = in.at(0);
  const int64_t clamped = std::clamp<int64_t>(k, -INT32_MAX / 2, INT32_MAX / 2);
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        const Expr diff = i[i.size() - 1] - i[i.size() - 2];  // column - row
        const Expr keep = upper ? ge(diff, i32(clamped)) : le(diff, i32(clamped));
        return select(keep, x(std::vector<Expr>(i.begin(), i.end())), make_zero(x.dtype()));
      },
      "trilu");
}

// DepthToSpace (DCR or CRD order) and SpaceToDepth on [N, C, H, W].
void depth_space_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_rank(n, x, 4);
  const int64_t b = n.attr_int("blocksize", 0);
  if (b < 1) KILN_USER_ERROR() << n.describe() << ": blocksize " << b;
  const int64_t c = x.shape[1], h = x.shape[2], w = x.shape[3];
  if (n.op == "DepthToSpace") {
    if (c % (b * b)) KILN_USER_ERROR() << n.describe() << ": " << c << " channels are not a multiple of " << b * b;
    set_output(g, n, 0, x.dtype, {x.shape[0], c / (b * b), h * b, w * b});
    return;
  }
  if (h % b || w % b) KILN_USER_ERROR() << n.describe() << ": " << h << " x " << w << " is not a multiple of " << b;
  set_output(g, n, 0, x.dtype, {x.shape[0], c * b * b, h / b, w / b});
}

te::Tensor depth_space(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const int64_t b = n.attr_int("blocksize", 0);
  const Expr B = i32(b);
  if (n.op == "DepthToSpace") {
    const int64_t c_out = out_shape(g, n)[1];
    const bool crd = n.attr_string("mode", "DCR") == "CRD";
    return te::compute(
        i32s(out_shape(g, n)),
        [&](Var bn, Var c, Var h, Var w) {
          const Expr bh = floormod(h, B), bw = floormod(w, B);
          const Expr src_c = crd ? c * i32(b * b) + bh * B + bw : (bh * B + bw) * i32(c_out) + c;
          return x(bn, src_c, floordiv(h, B), floordiv(w, B));
        },
        "depth_to_space");
  }
  const int64_t c_in = required_input(g, n, 0).shape[1];
  return te::compute(
      i32s(out_shape(g, n)),
      [&](Var bn, Var c, Var h, Var w) {
        const Expr block = floordiv(c, i32(c_in)), src_c = floormod(c, i32(c_in));
        return x(bn, src_c, h * B + floordiv(block, B), w * B + floormod(block, B));
      },
      "space_to_depth");
}

// EyeLike: ones on diagonal k of a matrix of x's shape, zeros elsewhere;
// of x's type, or `dtype`'s.
DataType eye_like_type(const Node& n, const Value& x) {
  if (!n.has_attr("dtype")) return x.dtype;
  return onnx_element_type(n.attr_int("dtype", 0), n.describe() + ": its dtype");
}

void eye_like_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_rank(n, x, 2);
  set_output(g, n, 0, eye_like_type(n, x), x.shape);
}

te::Tensor eye_like(const Graph& g, const Node& n, const Tensors&) {
  const DataType t = g.value(n.outputs[0]).dtype;
  const int64_t k = std::clamp<int64_t>(n.attr_int("k", 0), -INT32_MAX / 2, INT32_MAX / 2);
  return te::compute(
      i32s(out_shape(g, n)), [&](Var i, Var j) { return cast(t, eq(j - i, i32(k))); }, "eye_like");
}

// OneHot(indices, depth, values): `on` where an index (negative ones count
// from depth) equals the position along the new axis, else `off`.
// OneHot's depth: a constant scalar of any number type.
int64_t one_hot_depth(const Graph& g, const Node& n) {
  const Value& depth = required_input(g, n, 1);
  if (!depth.is_constant())
    KILN_UNSUPPORTED() << n.describe() << ": its depth must be a constant: kiln compiles graphs of static shapes";
  if (depth.numel() != 1 || !(depth.data->get(0) >= 1 && depth.data->get(0) <= double(kMaxElements)))
    KILN_USER_ERROR() << n.describe() << ": depth must be one positive value";
  return static_cast<int64_t>(depth.data->get(0));
}

void one_hot_rule(const Node& n, Graph& g) {
  const Value& idx = required_input(g, n, 0);
  const Value& values = required_input(g, n, 2);
  const Shape depth{one_hot_depth(g, n)};
  if (!values.is_constant() || values.numel() != 2)
    KILN_UNSUPPORTED() << n.describe() << ": its values must be a constant [off, on]";
  if (idx.dtype.is_bool()) KILN_USER_ERROR() << n.describe() << ": indices of bool";
  const int64_t rank = static_cast<int64_t>(idx.shape.size()) + 1;
  const int64_t axis = normalized_axis(n, n.attr_int("axis", -1), rank);
  Shape out = idx.shape;
  out.insert(out.begin() + axis, depth[0]);
  set_output(g, n, 0, values.dtype, out);
}

te::Tensor one_hot(const Graph& g, const Node& n, const Tensors& in) {
  const Value& values = required_input(g, n, 2);
  const int64_t depth = one_hot_depth(g, n);
  const Shape& out = out_shape(g, n);
  const size_t axis = static_cast<size_t>(normalized_axis(n, n.attr_int("axis", -1), static_cast<int64_t>(out.size())));
  const Expr off = make_const(values.dtype, values.data->get(0)), on = make_const(values.dtype, values.data->get(1));
  const te::Tensor& indices = in.at(0);
  const DataType i64 = DataType::Int64();
  return te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at;
        for (size_t d = 0; d < i.size(); ++d)
          if (d != axis) at.push_back(i[d]);
        const Expr v = cast(i64, indices(at));
        const Expr index = select(lt(v, make_const(i64, 0)), v + make_const(i64, static_cast<double>(depth)), v);
        return select(eq(index, cast(i64, i[axis])), on, off);
      },
      "one_hot");
}

// ScatterElements (and Scatter, its older name): data with updates[u]
// written at u's position with its axis coordinate replaced by
// indices[u]; where several land on one position the last (row-major)
// wins, or with reduction "add" they add to the data. Read as a gather:
// each output position looks along the axis of indices for the updates
// aimed at it, so the work is the output's size times that axis.
void scatter_elements_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& idx = required_input(g, n, 1);
  const Value& upd = required_input(g, n, 2);
  shape_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.shape.size()));
  if (!idx.dtype.is_int()) KILN_USER_ERROR() << n.describe() << ": indices of " << idx.dtype.str();
  if (idx.shape != upd.shape || idx.shape.size() != x.shape.size() || upd.dtype != x.dtype)
    KILN_USER_ERROR() << n.describe() << ": indices " << shape_str(idx.shape) << " and updates " << type_str(upd)
                      << " do not scatter into " << type_str(x);
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (idx.shape[d] > x.shape[d]) KILN_USER_ERROR() << n.describe() << ": indices reach past the data along axis " << d;
  const std::string reduction = n.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add") not_yet(n, "reduction '" + reduction + "'");
  same_as_input(n, g);
}

te::Tensor scatter_elements(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const Shape& ishape = required_input(g, n, 1).shape;
  const size_t axis = static_cast<size_t>(shape_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(shape.size())));
  const te::Tensor &x = in.at(0), &indices = in.at(1), &updates = in.at(2);
  const bool add = n.attr_string("reduction", "none") == "add";
  IterVar j = te::reduce_axis(Range(i32(0), i32(ishape[axis])), "j");
  // Whether update u = p with its axis coordinate j aims at p.
  auto aimed = [&](const std::vector<Var>& p, std::vector<Expr>& u) {
    u.assign(p.begin(), p.end());
    u[axis] = j.var();
    Expr ok = eq(runtime_index(indices(u), shape[axis]), p[axis]);
    for (size_t d = 0; d < shape.size(); ++d)
      if (d != axis && ishape[d] < shape[d]) ok = logical_and(ok, lt(p[d], i32(ishape[d])));
    // Positions past the indices' extent read a clamped update the select drops.
    for (size_t d = 0; d < shape.size(); ++d)
      if (d != axis && ishape[d] < shape[d]) u[d] = min(u[d], i32(ishape[d] - 1));
    return ok;
  };
  if (add) {
    const te::Tensor added = te::compute(
        i32s(shape),
        [&](const std::vector<Var>& p) {
          std::vector<Expr> u;
          const Expr ok = aimed(p, u);
          return te::sum(select(ok, updates(u), make_zero(x.dtype())), {j});
        },
        "scatter_add");
    return ops::map2(x, added, [](Expr a, Expr b) { return a + b; }, "scatter");
  }
  const te::Tensor last = te::compute(
      i32s(shape),
      [&](const std::vector<Var>& p) {
        std::vector<Expr> u;
        const Expr ok = aimed(p, u);
        return te::max_reduce(select(ok, j.var(), i32(-1)), {j});
      },
      "scatter_last");
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& p) {
        std::vector<Expr> at(p.begin(), p.end()), u(p.begin(), p.end());
        const Expr k = last(at);
        u[axis] = max(k, i32(0));
        for (size_t d = 0; d < shape.size(); ++d)
          if (d != axis && ishape[d] < shape[d]) u[d] = min(u[d], i32(ishape[d] - 1));
        return select(ge(k, i32(0)), updates(u), x(at));
      },
      "scatter");
}

// ScatterND: updates[t, ...] written at data[indices[t], ...], the index
// tuples of the last axis of indices; the last of several wins, or with
// reduction "add" they add. Each output position looks through every
// tuple for the last aimed at it.
void scatter_nd_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& idx = required_input(g, n, 1);
  const Value& upd = required_input(g, n, 2);
  if (!idx.dtype.is_int()) KILN_USER_ERROR() << n.describe() << ": indices of " << idx.dtype.str();
  if (idx.shape.empty() || idx.shape.back() < 1 || static_cast<size_t>(idx.shape.back()) > x.shape.size())
    KILN_USER_ERROR() << n.describe() << ": indices " << shape_str(idx.shape) << " into data " << shape_str(x.shape);
  Shape want(idx.shape.begin(), idx.shape.end() - 1);
  want.insert(want.end(), x.shape.begin() + idx.shape.back(), x.shape.end());
  if (upd.shape != want || upd.dtype != x.dtype)
    KILN_USER_ERROR() << n.describe() << ": updates " << type_str(upd) << ", not " << x.dtype.str() << shape_str(want);
  const std::string reduction = n.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add") not_yet(n, "reduction '" + reduction + "'");
  same_as_input(n, g);
}

te::Tensor scatter_nd(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const Shape& ishape = required_input(g, n, 1).shape;
  const size_t k = static_cast<size_t>(ishape.back()), q = ishape.size() - 1;
  const te::Tensor &x = in.at(0), &indices = in.at(1), &updates = in.at(2);
  const bool add = n.attr_string("reduction", "none") == "add";
  std::vector<IterVar> t;
  for (size_t d = 0; d < q; ++d) t.push_back(te::reduce_axis(Range(i32(0), i32(ishape[d])), "t" + std::to_string(d)));
  auto aimed = [&](const std::vector<Var>& p) {
    Expr ok = make_const(DataType::Bool(), 1);
    for (size_t j = 0; j < k; ++j) {
      std::vector<Expr> at;
      for (const IterVar& v : t) at.push_back(v.var());
      at.push_back(i32(static_cast<int64_t>(j)));
      ok = logical_and(ok, eq(runtime_index(indices(at), shape[j]), p[j]));
    }
    return ok;
  };
  auto update_at = [&](const std::vector<Expr>& tuple, const std::vector<Var>& p) {
    std::vector<Expr> u = tuple;
    u.insert(u.end(), p.begin() + static_cast<int64_t>(k), p.end());
    return updates(u);
  };
  if (add) {
    const te::Tensor added = te::compute(
        i32s(shape),
        [&](const std::vector<Var>& p) {
          std::vector<Expr> tuple;
          for (const IterVar& v : t) tuple.push_back(v.var());
          return te::sum(select(aimed(p), update_at(tuple, p), make_zero(x.dtype())), t);
        },
        "scatter_nd_add");
    return ops::map2(x, added, [](Expr a, Expr b) { return a + b; }, "scatter_nd");
  }
  const te::Tensor last = te::compute(
      i32s(shape),
      [&](const std::vector<Var>& p) {
        Expr linear = i32(0);
        for (size_t d = 0; d < q; ++d) linear = linear * i32(ishape[d]) + t[d].var();
        return te::max_reduce(select(aimed(p), linear, i32(-1)), t);
      },
      "scatter_nd_last");
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& p) {
        const Expr l = last(std::vector<Expr>(p.begin(), p.end()));
        std::vector<Expr> tuple(q);
        Expr rest = max(l, i32(0));
        for (size_t d = q; d-- > 0;) {
          tuple[d] = floormod(rest, i32(ishape[d]));
          rest = floordiv(rest, i32(ishape[d]));
        }
        return select(ge(l, i32(0)), update_at(tuple, p), x(std::vector<Expr>(p.begin(), p.end())));
      },
      "scatter_nd");
}

}  // namespace

std::vector<OpDef> movement_ops() {
  const LowerFn lower_reshape = one_output(reshape);
  constexpr OpPattern kInjective = OpPattern::kInjective;
  return {
      {"Reshape", "to a constant shape (0 copies an extent, -1 infers one)", kInjective, reshape_rule, lower_reshape, 1},
      {"Transpose", "permutes axes (perm, reversed by default)", kInjective, transpose_rule, one_output(transpose)},
      {"Flatten", "to 2-D around axis", kInjective, flatten_rule, lower_reshape},
      {"Squeeze", "drops axes of extent 1 (axes an attribute before opset 13, an input since)", kInjective,
       squeeze_rule, lower_reshape, 1},
      {"Unsqueeze", "inserts axes of extent 1", kInjective, unsqueeze_rule, lower_reshape, 1},
      {"Concat", "joins along axis", kInjective, concat_rule, one_output(concat)},
      {"Slice", "constant starts, ends, axes, steps (attributes before opset 10)", kInjective, slice_rule,
       one_output(slice), 1},
      {"Pad", "constant, reflect or edge padding by constant pads", kInjective, pad_rule, one_output(pad), 1},
      {"Gather", "takes indices along axis (constant, or computed: an out-of-range one is clamped)", kInjective,
       gather_rule, one_output(gather)},
      {"GatherElements", "x at indices along axis, elementwise", kInjective, gather_elements_rule,
       one_output(gather_elements)},
      {"GatherND", "x at index tuples (batch_dims)", kInjective, gather_nd_rule, one_output(gather_nd)},
      {"ScatterElements", "updates written at indices along axis (the last wins, or reduction add)", kInjective,
       scatter_elements_rule, one_output(scatter_elements)},
      {"Scatter", "ScatterElements' older name", kInjective, scatter_elements_rule, one_output(scatter_elements)},
      {"ScatterND", "updates written at index tuples (the last wins, or reduction add)", kInjective, scatter_nd_rule,
       one_output(scatter_nd)},
      {"Split", "parts along axis: sizes from split (an attribute before opset 13, an input since) or equal",
       kInjective, split_rule, split, 1},
      {"Expand", "broadcast to a constant shape", kInjective, expand_rule, one_output(expand), 1},
      {"Tile", "repeated along each axis by constant repeats", kInjective, tile_rule, one_output(tile), 1},
      {"Trilu", "the upper or lower triangle of the last two axes from diagonal k", kInjective, trilu_rule,
       one_output(trilu), 1},
      {"EyeLike", "ones on diagonal k of x's shape (dtype)", kInjective, eye_like_rule, one_output(eye_like)},
      {"OneHot", "on where an index equals the position along a new axis, else off", kInjective, one_hot_rule,
       one_output(one_hot), 1},
      {"DepthToSpace", "channels into blocks of space (DCR or CRD)", kInjective, depth_space_rule,
       one_output(depth_space)},
      {"SpaceToDepth", "blocks of space into channels", kInjective, depth_space_rule, one_output(depth_space)},
  };
}

}  // namespace kiln::graph::operators
