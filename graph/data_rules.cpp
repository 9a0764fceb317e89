#include "graph/data_rules.h"

#include <algorithm>

#include "core/error.h"
#include "graph/shape_util.h"
#include "graph/unsupported.h"

namespace kiln::graph {

SliceSpec slice_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
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

void slice(const Node& n, Graph& g) {
  const SliceSpec spec = slice_spec(g, n);
  std::vector<int64_t> out;
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

void pad(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const PadSpec spec = pad_spec(g, n);
  const size_t rank = x.shape.size();
  std::vector<int64_t> out;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t e = x.shape[d] + spec.pads[d] + spec.pads[d + rank];
    if (e < 0) KILN_USER_ERROR() << n.describe() << ": the pads leave axis " << d << " a negative extent";
    if (spec.mode == "reflect" && (spec.pads[d] >= x.shape[d] || spec.pads[d + rank] >= x.shape[d]))
      KILN_USER_ERROR() << n.describe() << ": reflect pads of axis " << d << " reach past its extent " << x.shape[d];
    out.push_back(e);
  }
  set_output(g, n, 0, x.dtype, out);
}

void gather(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& idx = required_input(g, n, 1);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = shape_axis(n, n.attr_int("axis", 0), rank);
  if (!idx.is_constant())
    KILN_UNSUPPORTED() << n.describe() << ": its indices (input '" << idx.name
                      << "') must be a constant: kiln takes Gather on constant indices";
  const int64_t dim = x.shape[static_cast<size_t>(axis)];
  for (int64_t i : ints_of(*idx.data))
    if (i < -dim || i >= dim) KILN_USER_ERROR() << n.describe() << ": index " << i << " is out of range for extent " << dim;
  std::vector<int64_t> out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  set_output(g, n, 0, x.dtype, out);
}

void constant(const Node& n, Graph& g) {
  if (TensorAttr t = n.attr_tensor("value")) {
    set_constant_output(g, n, 0, t->copy());
    return;
  }
  if (n.has_attr("value_float") || n.has_attr("value_int")) {
    const bool is_float = n.has_attr("value_float");
    NDArray a(is_float ? DataType::Float32() : DataType::Int64(), {});
    if (is_float) a.set(0, n.attr_float("value_float", 0));
    else a.data_as<int64_t>()[0] = n.attr_int("value_int", 0);
    set_constant_output(g, n, 0, std::move(a));
    return;
  }
  if (n.has_attr("value_floats")) {
    const std::vector<double> v = n.attr_floats("value_floats", {});
    NDArray a(DataType::Float32(), {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) a.set(static_cast<int64_t>(i), v[i]);
    set_constant_output(g, n, 0, std::move(a));
    return;
  }
  if (n.has_attr("value_ints")) {
    const std::vector<int64_t> v = n.attr_ints("value_ints", {});
    NDArray a(DataType::Int64(), {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), a.data_as<int64_t>());
    set_constant_output(g, n, 0, std::move(a));
    return;
  }
  KILN_USER_ERROR() << n.describe() << ": no value it supports (value, value_float(s), value_int(s))";
}

void shape(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  auto clamp_axis = [&](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
  const int64_t start = clamp_axis(n.attr_int("start", 0)), end = clamp_axis(n.attr_int("end", rank));
  const int64_t count = std::max<int64_t>(0, end - start);
  NDArray a(DataType::Int64(), {count});
  for (int64_t i = 0; i < count; ++i) a.data_as<int64_t>()[i] = x.shape[static_cast<size_t>(start + i)];
  set_constant_output(g, n, 0, std::move(a));
}

void constant_of_shape(const Node& n, Graph& g) {
  const std::vector<int64_t> dims = constant_ints(g, n, 0, "shape");
  for (int64_t d : dims)
    if (d < 0) KILN_USER_ERROR() << n.describe() << ": a negative extent " << d;
  TensorAttr value = n.attr_tensor("value");
  if (value && value->numel() != 1) KILN_USER_ERROR() << n.describe() << ": its value must hold one element";
  NDArray a(value ? value->dtype() : DataType::Float32(), dims);
  const double v = value ? value->get(0) : 0.0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype() == DataType::Int64()) a.data_as<int64_t>()[i] = value->data_as<int64_t>()[0];
    else a.set(i, v);
  }
  set_constant_output(g, n, 0, std::move(a));
}

}  // namespace kiln::graph
