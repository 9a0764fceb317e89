// Operators that fold at import: Constant, Shape, ConstantOfShape of a
// constant shape, Range, and the window functions of a constant size.
// Their rules set their outputs' contents; they have no compute
// definition, and no fused group holds them.
#include <algorithm>
#include <cmath>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/onnx_import.h"

namespace kiln::graph::operators {
namespace {

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
    const Shape v = n.attr_ints("value_ints", {});
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
  const Shape dims = constant_ints(g, n, 0, "shape");
  for (int64_t d : dims)
    if (d < 0) KILN_USER_ERROR() << n.describe() << ": a negative extent " << d;
  if (checked_numel(dims, n.describe()) > kMaxFoldedElements)
    KILN_USER_ERROR() << n.describe() << ": the shape " << shape_str(dims) << " has more elements than kiln folds ("
                      << kMaxFoldedElements << ")";
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

// Size: the element count, an int64 scalar.
void size(const Node& n, Graph& g) {
  NDArray a(DataType::Int64(), {});
  a.data_as<int64_t>()[0] = required_input(g, n, 0).numel();
  set_constant_output(g, n, 0, std::move(a));
}

// Range(start, limit, delta), all constant scalars: start + i * delta for
// i below max(ceil((limit - start) / delta), 0).
void range(const Node& n, Graph& g) {
  double v[3];
  for (size_t i = 0; i < 3; ++i) {
    const Value& x = required_input(g, n, i);
    if (!x.is_constant())
      KILN_UNSUPPORTED() << n.describe() << ": input '" << x.name << "' must be a constant: kiln compiles graphs of static shapes";
    if (x.numel() != 1) KILN_USER_ERROR() << n.describe() << ": input '" << x.name << "' must be a scalar";
    v[i] = x.data->get(0);
  }
  if (v[2] == 0) KILN_USER_ERROR() << n.describe() << ": a delta of 0";
  const double steps = std::ceil((v[1] - v[0]) / v[2]);
  if (!(steps <= double(kMaxFoldedElements)))
    KILN_USER_ERROR() << n.describe() << ": " << steps << " elements, more than kiln folds (" << kMaxFoldedElements << ")";
  const int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  const DataType t = required_input(g, n, 0).dtype;
  NDArray a(t, {count});
  for (int64_t i = 0; i < count; ++i) {
    if (t == DataType::Int64()) a.data_as<int64_t>()[i] = static_cast<int64_t>(v[0]) + i * static_cast<int64_t>(v[2]);
    else a.set(i, v[0] + static_cast<double>(i) * v[2]);
  }
  set_constant_output(g, n, 0, std::move(a));
}

// HannWindow, HammingWindow, BlackmanWindow: a0 - a1 cos(2πn/N) + a2
// cos(4πn/N) for n below the constant `size`, N = size when periodic (the
// default), size - 1 when not; in output_datatype (float32 by default).
void window(const Node& n, Graph& g) {
  const Shape size = constant_ints(g, n, 0, "size");
  if (size.size() != 1 || size[0] < 1 || size[0] > kMaxFoldedElements)
    KILN_USER_ERROR() << n.describe() << ": size must be one value from 1 to " << kMaxFoldedElements;
  const DataType t = onnx_element_type(n.attr_int("output_datatype", 1), n.describe() + ": output_datatype");
  double a0 = 0.5, a1 = 0.5, a2 = 0;  // Hann
  if (n.op == "HammingWindow") a0 = 25.0 / 46, a1 = 1 - a0;
  if (n.op == "BlackmanWindow") a0 = 0.42, a1 = 0.5, a2 = 0.08;
  const double N = static_cast<double>(n.attr_int("periodic", 1) != 0 ? size[0] : size[0] - 1);
  NDArray a(t, {size[0]});
  for (int64_t i = 0; i < size[0]; ++i) {
    const double x = 2 * M_PI * static_cast<double>(i) / N;
    a.set(i, a0 - a1 * std::cos(x) + a2 * std::cos(2 * x));
  }
  set_constant_output(g, n, 0, std::move(a));
}

}  // namespace

std::vector<OpDef> folded_ops() {
  return {
      {"Constant", "a constant tensor (value, value_float(s), value_int(s))", OpPattern::kElementwise, constant, {}},
      {"Shape", "the input's shape, folded to a constant (start and end since opset 15)", OpPattern::kElementwise,
       shape, {}},
      {"ConstantOfShape", "a tensor of one value, folded to a constant", OpPattern::kElementwise, constant_of_shape,
       {}, 0},
      {"Size", "the input's element count, folded to a constant", OpPattern::kElementwise, size, {}},
      {"Range", "start + i * delta below limit, of constant scalars, folded", OpPattern::kElementwise, range, {}, 0},
      {"HannWindow", "0.5 - 0.5 cos(2πn/N) of a constant size (periodic: N = size), folded", OpPattern::kElementwise,
       window, {}, 0},
      {"HammingWindow", "25/46 - 21/46 cos(2πn/N) of a constant size, folded", OpPattern::kElementwise, window, {}, 0},
      {"BlackmanWindow", "0.42 - 0.5 cos(2πn/N) + 0.08 cos(4πn/N) of a constant size, folded", OpPattern::kElementwise,
       window, {}, 0},
  };
}

}  // namespace kiln::graph::operators
