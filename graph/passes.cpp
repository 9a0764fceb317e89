#include "graph/passes.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.h"
#include "graph/fold_channel_scale.h"
#include "graph/fold_qdq.h"
#include "graph/fold_zero_points.h"
#include "graph/layout.h"
#include "graph/pad_attention.h"
#include "graph/pad_dense.h"
#include "graph/recognize.h"

namespace kiln::graph {
namespace {

// The readers of each value.
std::vector<int> reader_counts(const Graph& g) {
  std::vector<int> readers(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int id : n.inputs)
      if (id != Node::kNone) ++readers[static_cast<size_t>(id)];
  for (int id : g.outputs) ++readers[static_cast<size_t>(id)];
  return readers;
}

bool constant_f32(const Graph& g, int id) {
  return id != Node::kNone && g.value(id).is_constant() && g.value(id).dtype == DataType::Float32();
}

// The per-channel factor and shift of a BatchNormalization node over
// `channels` channels: y = x * factor + shift. Empty when its parameters
// are not constant float32 vectors of that length.
bool bn_affine(const Graph& g, const Node& bn, int64_t channels, std::vector<double>& factor,
               std::vector<double>& shift) {
  if (bn.inputs.size() < 5) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!constant_f32(g, bn.inputs[i]) || g.value(bn.inputs[i]).numel() != channels) return false;
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (bn.outputs[i] != Node::kNone) return false;  // training outputs
  const NDArray &s = *g.value(bn.inputs[1]).data, &b = *g.value(bn.inputs[2]).data,
                &mean = *g.value(bn.inputs[3]).data, &var = *g.value(bn.inputs[4]).data;
  const double eps = bn.attr_float("epsilon", 1e-5);
  factor.resize(static_cast<size_t>(channels));
  shift.resize(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    factor[c] = s.get(c) / std::sqrt(var.get(c) + eps);
    shift[c] = b.get(c) - mean.get(c) * factor[c];
  }
  return true;
}

// Folds `bn` into the Conv `conv` (indices into g.nodes); false when it
// does not fit.
bool fold_into_conv(Graph& g, Node& conv, const Node& bn) {
  if (!constant_f32(g, conv.inputs.at(1))) return false;
  const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] != Node::kNone;
  if (has_bias && !constant_f32(g, conv.inputs[2])) return false;
  const Value& w = g.value(conv.inputs[1]);
  const int64_t k = w.shape.at(0);
  std::vector<double> factor, shift;
  if (!bn_affine(g, bn, k, factor, shift)) return false;
  NDArray w2 = w.data->copy();
  const int64_t per = w2.numel() / k;
  for (int64_t c = 0; c < k; ++c)
    for (int64_t i = 0; i < per; ++i) w2.set(c * per + i, w2.get(c * per + i) * factor[c]);
  NDArray b2(DataType::Float32(), {k});
  for (int64_t c = 0; c < k; ++c) b2.set(c, (has_bias ? g.value(conv.inputs[2]).data->get(c) * factor[c] : 0.0) + shift[c]);
  const int wid = g.add_constant(w.name + "_bn_folded", std::move(w2));
  const int bid = g.add_constant(conv.name + "_bn_folded_bias", std::move(b2));
  conv.inputs[1] = wid;
  conv.inputs.resize(3, Node::kNone);
  conv.inputs[2] = bid;
  return true;
}

// Folds `bn` (over axis 1, the N of an M×N product) into the Gemm `gemm`:
// its B's output columns scaled, its C (absent or one value per column)
// replaced; false when it does not fit.
bool fold_into_gemm(Graph& g, Node& gemm, const Node& bn) {
  if (gemm.inputs.size() < 2 || !constant_f32(g, gemm.inputs[1])) return false;
  const bool has_c = gemm.inputs.size() > 2 && gemm.inputs[2] != Node::kNone;
  const Value& b = g.value(gemm.inputs[1]);
  const bool trans_b = gemm.attr_int("transB", 0) != 0;
  const int64_t n = trans_b ? b.shape.at(0) : b.shape.at(1);
  if (has_c && (!constant_f32(g, gemm.inputs[2]) || g.value(gemm.inputs[2]).numel() != n ||
                g.value(gemm.inputs[2]).shape.back() != n))
    return false;
  std::vector<double> factor, shift;
  if (!bn_affine(g, bn, n, factor, shift)) return false;
  NDArray b2 = b.data->copy();
  const int64_t kdim = b2.numel() / n;
  for (int64_t i = 0; i < kdim; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = trans_b ? j * kdim + i : i * n + j;
      b2.set(at, b2.get(at) * factor[j]);
    }
  const double beta = gemm.attr_float("beta", 1.0);
  NDArray c2(DataType::Float32(), {n});
  for (int64_t j = 0; j < n; ++j) c2.set(j, (has_c ? beta * g.value(gemm.inputs[2]).data->get(j) : 0.0) * factor[j] + shift[j]);
  gemm.inputs[1] = g.add_constant(b.name + "_bn_folded", std::move(b2));
  gemm.inputs.resize(3, Node::kNone);
  gemm.inputs[2] = g.add_constant(gemm.name + "_bn_folded_bias", std::move(c2));
  gemm.attrs["beta"] = 1.0;
  return true;
}

}  // namespace

Graph fold_batch_norm(const Graph& in) {
  Graph g = in;
  const std::vector<int> readers = reader_counts(g);
  std::vector<bool> drop(g.nodes.size(), false);
  // The node that writes each value.
  std::vector<int> writer(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int id : g.nodes[i].outputs)
      if (id != Node::kNone) writer[static_cast<size_t>(id)] = static_cast<int>(i);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& bn = g.nodes[i];
    if (bn.op != "BatchNormalization" || bn.attr_int("training_mode", 0) != 0) continue;
    const int x = bn.inputs.at(0);
    const int w = writer[static_cast<size_t>(x)];
    if (w < 0 || readers[static_cast<size_t>(x)] != 1) continue;
    Node& anchor = g.nodes[static_cast<size_t>(w)];
    if (anchor.outputs.size() != 1) continue;
    const Node bn_copy = bn;
    const bool folded = (anchor.op == "Conv" && fold_into_conv(g, anchor, bn_copy)) ||
                        (anchor.op == "Gemm" && fold_into_gemm(g, anchor, bn_copy));
    if (!folded) continue;
    anchor.outputs[0] = bn_copy.outputs[0];  // the anchor now writes what the BN did
    drop[i] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  return g;
}

Graph split_into_slices(const Graph& in) {
  Graph g = in;
  g.nodes.clear();
  for (const Node& n : in.nodes) {
    const bool every_output = std::none_of(n.outputs.begin(), n.outputs.end(), [](int id) { return id == Node::kNone; });
    if (n.op != "Split" || !every_output) {
      g.nodes.push_back(n);
      continue;
    }
    const int64_t rank = static_cast<int64_t>(in.value(n.inputs.at(0)).shape.size());
    int64_t axis = n.attr_int("axis", 0);
    if (axis < 0) axis += rank;
    int64_t offset = 0;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const int64_t size = in.value(n.outputs[k]).shape.at(static_cast<size_t>(axis));
      Node slice;
      slice.name = n.name + "_" + std::to_string(k);
      slice.op = "Slice";
      slice.inputs = {n.inputs[0]};
      slice.outputs = {n.outputs[k]};
      slice.attrs["starts"] = std::vector<int64_t>{offset};
      slice.attrs["ends"] = std::vector<int64_t>{offset + size};
      slice.attrs["axes"] = std::vector<int64_t>{axis};
      g.nodes.push_back(std::move(slice));
      offset += size;
    }
  }
  return g;
}

Graph eliminate_dead_code(const Graph& in) {
  Graph g = in;
  std::vector<bool> live(g.values.size(), false);
  for (int id : g.outputs) live[static_cast<size_t>(id)] = true;
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    // A node folded at import (its outputs constants) computes nothing at
    // run time: its values hold their data.
    for (int id : n.outputs)
      keep[i] = keep[i] || (id != Node::kNone && live[static_cast<size_t>(id)] && !g.value(id).is_constant());
    if (!keep[i]) continue;
    for (int id : n.inputs)
      if (id != Node::kNone) live[static_cast<size_t>(id)] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  return g;
}

namespace {

// The passes in the order they run: one table, which pass_names and
// run_passes both read.
struct Pass {
  const char* name;
  Graph (*run)(const Graph&, const PassOptions&);
};

const std::vector<Pass>& passes() {
  static const std::vector<Pass> table = {
      {"fold_batch_norm", [](const Graph& g, const PassOptions&) { return fold_batch_norm(g); }},
      {"fold_qdq", [](const Graph& g, const PassOptions&) { return fold_qdq(g); }},
      {"fold_zero_points", [](const Graph& g, const PassOptions&) { return fold_zero_points(g); }},
      {"split_into_slices", [](const Graph& g, const PassOptions&) { return split_into_slices(g); }},
      {"recognize_layer_norm", [](const Graph& g, const PassOptions&) { return recognize_layer_norm(g); }},
      {"recognize_gelu", [](const Graph& g, const PassOptions&) { return recognize_gelu(g); }},
      {"recognize_silu", [](const Graph& g, const PassOptions&) { return recognize_silu(g); }},
      {"recognize_attention", [](const Graph& g, const PassOptions&) { return recognize_attention(g); }},
      {"eliminate_dead_code", [](const Graph& g, const PassOptions&) { return eliminate_dead_code(g); }},
      {"pad_dense_columns", [](const Graph& g, const PassOptions& o) { return pad_dense_columns(g, o.dense_lanes); }},
      {"pad_attention_keys", [](const Graph& g, const PassOptions& o) { return pad_attention_keys(g, o.dense_lanes); }},
      {"convert_layout", [](const Graph& g, const PassOptions& o) { return convert_layout(g, o.lanes); }},
      {"fold_channel_scale", [](const Graph& g, const PassOptions&) { return fold_channel_scale(g); }},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Pass& p : passes()) out.push_back(p.name);
    return out;
  }();
  return names;
}

Graph run_passes(const Graph& g, const std::string& last, const PassOptions& options) {
  if (!last.empty() && std::find(pass_names().begin(), pass_names().end(), last) == pass_names().end()) {
    std::string list;
    for (const std::string& p : pass_names()) list += (list.empty() ? "" : ", ") + p;
    KILN_USER_ERROR() << "no graph pass called '" << last << "'; the passes are " << list;
  }
  Graph out = g;
  for (const Pass& p : passes()) {
    out = p.run(out, options);
    if (last == p.name) break;
  }
  return out;
}

}  // namespace kiln::graph
