// Operators that fold at import: Constant, Shape, and ConstantOfShape of a
// constant shape. Their rules set their outputs' contents; they have no
// compute definition, and no fused group holds them.
#include <algorithm>

#include "graph/operators/common.h"
#include "graph/operators/families.h"

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

}  // namespace

std::vector<OpDef> folded_ops() {
  return {
      {"Constant", "a constant tensor (value, value_float(s), value_int(s))", OpPattern::kElementwise, constant, {}},
      {"Shape", "the input's shape, folded to a constant (start and end since opset 15)", OpPattern::kElementwise,
       shape, {}},
      {"ConstantOfShape", "a tensor of one value, folded to a constant", OpPattern::kElementwise, constant_of_shape,
       {}, 0},
  };
}

}  // namespace kiln::graph::operators
