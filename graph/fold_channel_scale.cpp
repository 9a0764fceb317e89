#include "graph/fold_channel_scale.h"

#include <algorithm>
#include <vector>

#include "graph/layout.h"

namespace kiln::graph {
namespace {

using Shape = std::vector<int64_t>;

// The scale's shape for a scaled value of `shape`: one value per channel,
// [1, C, 1, 1] or, blocked, [1, C/b, 1, 1, b]; empty where `shape` is
// neither.
Shape per_channel(const Shape& shape) {
  if (shape.size() == 4 && shape[0] == 1) return {1, shape[1], 1, 1};
  if (shape.size() == 5 && shape[0] == 1) return {1, shape[1], 1, 1, shape[4]};
  return {};
}

// Whether `n` is a convolution whose weights fold a scale of its data
// `y`: one group, constant float32 weights, `y` its data and nothing else.
bool takes_scale(const Graph& g, const Node& n, int y) {
  if (n.op != "Conv" && n.op != kConvNCHWc) return false;
  if (n.inputs.size() < 2 || n.inputs[0] != y || n.attr_int("group", 1) != 1) return false;
  if (std::count(n.inputs.begin(), n.inputs.end(), y) != 1) return false;
  const Value& w = g.value(n.inputs[1]);
  return w.is_constant() && w.dtype == DataType::Float32() && w.shape.size() == (n.op == "Conv" ? 4u : 6u);
}

}  // namespace

Graph fold_channel_scale(const Graph& in) {
  Graph g = in;
  const ValueReaders reads = value_readers(in);

  std::vector<Node> out;
  out.reserve(g.nodes.size());
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    const Node& mul = in.nodes[i];
    if (mul.op != "Mul" || mul.inputs.size() != 2 || mul.outputs.size() != 1) {
      out.push_back(g.nodes[i]);
      continue;
    }
    const int y = mul.outputs[0];
    const Shape shape = g.value(y).shape;
    const Shape scale_shape = per_channel(shape);
    int x = Node::kNone, s = Node::kNone;
    for (int k = 0; k < 2; ++k)
      if (g.value(mul.inputs[k]).shape == shape && g.value(mul.inputs[1 - k]).shape == scale_shape) {
        x = mul.inputs[k];
        s = mul.inputs[1 - k];
      }
    const std::vector<size_t>& users = reads.nodes[static_cast<size_t>(y)];
    int64_t weights = 0;
    bool fits = x != Node::kNone && !scale_shape.empty() && !reads.is_output[static_cast<size_t>(y)] && !users.empty() &&
                g.value(y).dtype == DataType::Float32();
    for (size_t u : users) {
      fits = fits && takes_scale(g, g.nodes[u], y);
      if (fits) weights += g.value(g.nodes[u].inputs[1]).numel();
    }
    if (!fits || 2 * weights > g.value(y).numel()) {
      out.push_back(g.nodes[i]);
      continue;
    }
    // The scale against the weights' input channels: [1, C, 1, 1] already
    // is; [1, C/b, 1, 1, b] takes a last axis for the output channels.
    int factor = s;
    if (shape.size() == 5) {
      NDArray target(DataType::Int64(), {6});
      const Shape to{1, shape[1], 1, 1, shape[4], 1};
      for (int64_t a = 0; a < 6; ++a) target.set(a, static_cast<double>(to[static_cast<size_t>(a)]));
      const int target_id = g.add_constant(mul.name + "_scale_shape", std::move(target));
      Value v;
      v.name = g.value(s).name + "_per_input_channel";
      v.shape = to;
      factor = g.add_value(std::move(v));
      Node reshape;
      reshape.name = mul.name + "_scale_reshape";
      reshape.op = "Reshape";
      reshape.inputs = {s, target_id};
      reshape.outputs = {factor};
      out.push_back(std::move(reshape));
    }
    for (size_t u : users) {
      Node& conv = g.nodes[u];
      const Value w = g.value(conv.inputs[1]);  // a copy: add_value moves values
      Value scaled;
      scaled.name = w.name + "_scaled_by_" + g.value(s).name;
      scaled.shape = w.shape;
      const int w2 = g.add_value(std::move(scaled));
      Node m;
      m.name = conv.name + "_weights_scaled";
      m.op = "Mul";
      m.inputs = {conv.inputs[1], factor};
      m.outputs = {w2};
      out.push_back(std::move(m));
      conv.inputs[0] = x;
      conv.inputs[1] = w2;
    }
  }
  g.nodes = std::move(out);
  return g;
}

}  // namespace kiln::graph
