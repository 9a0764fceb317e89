#include "graph/shape_util.h"
#include "graph/unsupported.h"

#include <algorithm>

#include "core/error.h"

namespace kiln::graph {

const Value& required_input(const Graph& g, const Node& n, size_t i) {
  const Value* v = g.input(n, i);
  if (!v) KILN_USER_ERROR() << n.describe() << ": input " << i << " is missing";
  return *v;
}

int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0) KILN_USER_ERROR() << what << " has a negative extent " << d;
    if (d > 0 && elements > kMaxElements / d) KILN_USER_ERROR() << what << " has more elements than kiln holds";
    elements *= d;
  }
  return elements;
}

void set_output(Graph& g, const Node& n, size_t i, DataType dtype, std::vector<int64_t> shape) {
  if (i >= n.outputs.size() || n.outputs[i] == Node::kNone) return;
  checked_numel(shape, n.describe() + ": output " + std::to_string(i));
  Value& v = g.value(n.outputs[i]);
  v.dtype = dtype;
  v.shape = std::move(shape);
}

void set_constant_output(Graph& g, const Node& n, size_t i, NDArray data) {
  if (i >= n.outputs.size() || n.outputs[i] == Node::kNone) return;
  Value& v = g.value(n.outputs[i]);
  v.dtype = data.dtype();
  v.shape = data.shape();
  v.data = std::make_shared<const NDArray>(std::move(data));
}

std::vector<int64_t> ints_of(const NDArray& a) {
  std::vector<int64_t> out(static_cast<size_t>(a.numel()));
  for (int64_t i = 0; i < a.numel(); ++i)
    out[static_cast<size_t>(i)] = a.dtype() == DataType::Int64() ? a.data_as<int64_t>()[i]
                                                                 : static_cast<int64_t>(a.get(i));
  return out;
}

std::vector<int64_t> constant_ints(const Graph& g, const Node& n, size_t i, const char* what) {
  const Value& v = required_input(g, n, i);
  if (!v.is_constant())
    KILN_UNSUPPORTED() << n.describe() << ": its " << what << " (input '" << v.name
                      << "') must be a constant: kiln compiles graphs of static shapes";
  if (!v.dtype.is_integral())
    KILN_USER_ERROR() << n.describe() << ": its " << what << " must be integers, not " << v.dtype.str();
  return ints_of(*v.data);
}

int64_t normalized_axis(const Node& n, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    KILN_USER_ERROR() << n.describe() << ": axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

int64_t shape_axis(const Node& n, int64_t axis, int64_t rank) {
  if (rank == 0) KILN_USER_ERROR() << n.describe() << ": axis " << axis << " of a scalar (rank 0) input";
  return normalized_axis(n, axis, rank);
}

std::vector<int64_t> broadcast_shapes(const Node& n, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) {
      std::string sa, sb;
      for (int64_t d : a) sa += (sa.empty() ? "" : ", ") + std::to_string(d);
      for (int64_t d : b) sb += (sb.empty() ? "" : ", ") + std::to_string(d);
      KILN_USER_ERROR() << n.describe() << ": shapes [" << sa << "] and [" << sb << "] do not broadcast";
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int64_t> window_pads(const Node& n, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations) {
  const size_t k = in.size();
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * k, 0));
    if (pads.size() != 2 * k)
      KILN_USER_ERROR() << n.describe() << ": pads has " << pads.size() << " values, not " << 2 * k;
    return pads;
  }
  std::vector<int64_t> pads(2 * k, 0);
  if (auto_pad == "VALID") return pads;
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    KILN_USER_ERROR() << n.describe() << ": unknown auto_pad '" << auto_pad << "'";
  for (size_t i = 0; i < k; ++i) {
    const int64_t out = (in[i] + strides[i] - 1) / strides[i];
    const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 - in[i]);
    const int64_t small = total / 2, large = total - small;
    pads[i] = auto_pad == "SAME_UPPER" ? small : large;
    pads[i + k] = auto_pad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

bool is_depthwise_conv(const Graph& g, const Node& n) {
  if (n.op != "Conv" || n.inputs.size() < 2) return false;
  const int64_t group = n.attr_int("group", 1);
  const std::vector<int64_t>& x = g.value(n.inputs[0]).shape;
  const std::vector<int64_t>& w = g.value(n.inputs[1]).shape;
  return group > 1 && x.size() == 4 && x[1] == group && w.size() == 4 && w[0] == group && w[1] == 1;
}

}  // namespace kiln::graph
