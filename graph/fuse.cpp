#include "graph/fuse.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "graph/layout.h"
#include "graph/op_table.h"
#include "graph/recognize.h"
#include "graph/recognize/match.h"
#include "graph/shape_util.h"

namespace kiln::graph {
namespace {

using Shape = std::vector<int64_t>;

// Whether every output of `n` is a constant: folded at import, computed by
// no function.
bool is_folded(const Graph& g, const Node& n) {
  for (int id : n.outputs)
    if (id != Node::kNone && !g.value(id).is_constant()) return false;
  return true;
}

// The one output a node in a chain passes on, or kNone when it has more
// than one that is used.
int single_output(const Node& n) {
  int out = Node::kNone;
  for (int id : n.outputs) {
    if (id == Node::kNone) continue;
    if (out != Node::kNone) return Node::kNone;
    out = id;
  }
  return out;
}

// Whether `n` only renames the shape of what it reads, its elements in
// the same order (a Reshape, Flatten, Squeeze or Unsqueeze): an epilogue
// may pass through it (GPT-2's Gemm, reshaped back to [batch, sequence,
// hidden] before its residual add).
bool is_view(const Node& n) {
  return n.op == "Reshape" || n.op == "Flatten" || n.op == "Squeeze" || n.op == "Unsqueeze";
}

// Whether `n` keeps a corner of what it reads: a Slice from 0 along its
// axes, step 1, as graph/pad_dense.h writes one to take the columns a
// padded product computed too many. An anchor's epilogue may end in it:
// the kernel writes the corner and never the padding.
bool is_crop(const Node& n) {
  if (n.op != "Slice" || n.inputs.size() != 1 || !n.has_attr("starts")) return false;
  const std::vector<int64_t> starts = n.attr_ints("starts", {});
  return std::all_of(starts.begin(), starts.end(), [](int64_t s) { return s == 0; });
}

// Whether elementwise `c`, read into by a smaller chain (`broadcasts`: its
// output is larger than the chain's, a scale or a mask broadcast into it),
// reads another operand that an anchor computes, directly or through
// elementwise operators (each followed back through its first input):
// then it is that anchor's epilogue, and the small chain, which comes
// first in node order, must not take it. A dynamically quantized layer's
// Mul by a_scale · w_scale is its product's epilogue, after its Cast, not
// the scalar Mul's.
bool belongs_to_anchor(const recognize::Matcher& m, const Node& c, bool broadcasts) {
  if (!broadcasts) return false;
  for (int id : c.inputs) {
    for (int step = 0; step < 8; ++step) {
      const Node* n = m.writer(id);
      if (!n) break;
      const OpPattern p = op_pattern(*n);
      if (p == OpPattern::kAnchor) return true;
      if (p != OpPattern::kElementwise || n->inputs.empty()) break;
      id = n->inputs[0];
    }
  }
  return false;
}

// Whether `n` is a pointwise convolution: a 1x1 window at stride 1, one
// group, the output the input's size (no padding).
bool is_pointwise_conv(const Graph& g, const Node& n) {
  if ((n.op != "Conv" && n.op != kConvNCHWc) || n.inputs.size() < 2 || n.attr_int("group", 1) != 1) return false;
  const Shape& w = g.value(n.inputs[1]).shape;
  const Shape& x = g.value(n.inputs[0]).shape;
  const int out = single_output(n);
  if (w.size() < 4 || w[2] != 1 || w[3] != 1 || out == Node::kNone) return false;
  const Shape& y = g.value(out).shape;
  return x.size() >= 4 && y.size() == x.size() && x[2] == y[2] && x[3] == y[3];
}

// A group's inputs: what its nodes read that none of them writes.
void set_inputs(const Graph& g, FusedGroup& group) {
  group.inputs.clear();
  std::set<int> inside;
  for (size_t i : group.nodes)
    for (int id : g.nodes[i].outputs) inside.insert(id);
  for (size_t i : group.nodes)
    for (int id : g.nodes[i].inputs)
      if (id != Node::kNone && !inside.count(id) &&
          std::find(group.inputs.begin(), group.inputs.end(), id) == group.inputs.end())
        group.inputs.push_back(id);
}

// Whether the group's first node is a product of matrices: what an index
// map in front of it may join (convolutions keep theirs, and their blocked
// layouts, as graph/layout.h converts them).
bool starts_with_product(const Graph& g, const FusedGroup& group) {
  const std::string& op = g.nodes[group.nodes.front()].op;
  return op == "MatMul" || op == "Gemm" || op == "MatMulInteger" || op == kAttention;
}

// Index maps into their product: a group of data movement alone (the
// Reshape and Transpose that split heads before attention, or merge them
// before the output projection) whose one output only a group starting
// with a product of matrices reads joins that group, in front. Its stages
// then read the anchor's operand where it lies instead of copying it (a
// schedule inlines them, or computes them per tile); the anchor's repeated
// reads of each element make this right for index arithmetic only, never
// for elementwise math.
void absorb_index_maps(const Graph& g, const std::vector<std::vector<size_t>>& readers,
                       const std::vector<bool>& is_output, std::vector<FusedGroup>& groups) {
  std::vector<int> group_of(g.nodes.size(), -1);
  for (size_t k = 0; k < groups.size(); ++k)
    for (size_t i : groups[k].nodes) group_of[i] = static_cast<int>(k);
  std::vector<bool> absorbed(groups.size(), false), anchored(groups.size(), false);
  for (size_t k = 0; k < groups.size(); ++k) anchored[k] = starts_with_product(g, groups[k]);
  // Group k into the one product group reading it, if it is one to join.
  auto absorb = [&](size_t k) {
    const FusedGroup& p = groups[k];
    const bool moves_only = std::all_of(p.nodes.begin(), p.nodes.end(), [&](size_t i) {
      return op_pattern(g.nodes[i]) == OpPattern::kInjective;
    });
    if (!moves_only || p.outputs.size() != 1 || is_output[static_cast<size_t>(p.outputs[0])]) return false;
    const std::vector<size_t>& users = readers[static_cast<size_t>(p.outputs[0])];
    if (users.empty()) return false;
    const int c = group_of[users[0]];
    const bool one_consumer = std::all_of(users.begin(), users.end(), [&](size_t u) { return group_of[u] == c; });
    if (c < 0 || static_cast<size_t>(c) == k || !one_consumer || !anchored[static_cast<size_t>(c)]) return false;
    FusedGroup& consumer = groups[static_cast<size_t>(c)];
    consumer.nodes.insert(consumer.nodes.end(), p.nodes.begin(), p.nodes.end());
    std::sort(consumer.nodes.begin(), consumer.nodes.end());
    for (size_t i : p.nodes) group_of[i] = c;
    set_inputs(g, consumer);
    return true;
  };
  // Until nothing changes: a map read by several maps joins once they
  // have all joined one group (a fused QKV projection, reshaped, then
  // sliced three ways into the heads of one attention).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < groups.size(); ++k)
      if (!absorbed[k] && absorb(k)) absorbed[k] = changed = true;
  }
  std::vector<FusedGroup> kept;
  for (size_t k = 0; k < groups.size(); ++k)
    if (!absorbed[k]) kept.push_back(std::move(groups[k]));
  groups = std::move(kept);
}

}  // namespace

OpPattern op_pattern(const Node& n) { return op_def(n).pattern; }

bool is_input_view(const Graph& g, const FusedGroup& gr) {
  if (gr.inputs.size() != 1 || gr.outputs.size() != 1) return false;
  if (std::find(g.inputs.begin(), g.inputs.end(), gr.inputs[0]) == g.inputs.end()) return false;
  if (std::find(g.outputs.begin(), g.outputs.end(), gr.outputs[0]) != g.outputs.end()) return false;
  for (size_t i : gr.nodes) {
    const Node& n = g.nodes[i];
    if (is_view(n)) continue;
    if ((n.op != kToNCHWc && n.op != kFromNCHWc) || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
    const Value& in = g.value(n.inputs[0]);
    const Value& out = g.value(n.outputs[0]);
    const Value& blocked = n.op == kToNCHWc ? out : in;
    if (in.numel() != out.numel() || blocked.shape.empty() || blocked.shape.back() != 1) return false;
  }
  return true;
}

std::vector<FusedGroup> fuse_operators(const Graph& g, const FuseOptions& options) {
  const ValueReaders value_reads = value_readers(g);
  const std::vector<std::vector<size_t>>& readers = value_reads.nodes;
  const std::vector<bool>& is_output = value_reads.is_output;

  const recognize::Matcher match(g);
  std::vector<bool> taken(g.nodes.size(), false);
  std::vector<FusedGroup> groups;
  for (size_t start = 0; start < g.nodes.size(); ++start) {
    if (taken[start] || is_folded(g, g.nodes[start])) continue;
    FusedGroup group;
    group.nodes.push_back(start);
    taken[start] = true;
    const OpPattern head = op_pattern(g.nodes[start]);
    // A depthwise convolution's chain may go on, once, into the pointwise
    // convolution that alone reads it (FuseOptions).
    bool may_take_pointwise =
        g.nodes[start].op == kDepthwiseConvNCHWc || is_depthwise_conv(g, g.nodes[start]);
    // Extend the chain while the last output has one reader that may join.
    for (;;) {
      const int out = single_output(g.nodes[group.nodes.back()]);
      if (out == Node::kNone || is_output[static_cast<size_t>(out)]) break;
      const std::vector<size_t>& next = readers[static_cast<size_t>(out)];
      if (next.size() != 1 || taken[next[0]]) break;
      const Node& c = g.nodes[next[0]];
      const OpPattern p = op_pattern(c);
      const int c_out = single_output(c);
      if (c_out == Node::kNone) break;
      bool joins;
      if (head == OpPattern::kAnchor || head == OpPattern::kReduction) {
        const bool pointwise = may_take_pointwise && is_pointwise_conv(g, c) && c.inputs[0] == out &&
                               g.value(out).numel() * 4 >= options.depthwise_output_bytes;
        joins = (p == OpPattern::kElementwise && g.value(c_out).shape == g.value(out).shape) ||
                (is_view(c) && g.value(c_out).numel() == g.value(out).numel()) ||
                (is_crop(c) && g.value(c_out).shape.size() == g.value(out).shape.size()) || pointwise;
        if (pointwise) may_take_pointwise = false;
      } else
        joins = (p == OpPattern::kElementwise || p == OpPattern::kInjective) &&
                !belongs_to_anchor(match, c, g.value(c_out).numel() > g.value(out).numel());
      // The reader reads the chain once (Mul(x, x) would need the value twice).
      joins = joins && std::count(c.inputs.begin(), c.inputs.end(), out) == 1;
      if (!joins) break;
      group.nodes.push_back(next[0]);
      taken[next[0]] = true;
    }
    for (int id : g.nodes[group.nodes.back()].outputs)
      if (id != Node::kNone) group.outputs.push_back(id);
    set_inputs(g, group);
    groups.push_back(std::move(group));
  }
  absorb_index_maps(g, readers, is_output, groups);
  // In the order they run: a group runs where its last node was, after
  // every node that writes what it reads (a residual add's other operand,
  // computed after the convolution that starts the group, included).
  std::stable_sort(groups.begin(), groups.end(),
                   [](const FusedGroup& a, const FusedGroup& b) { return a.nodes.back() < b.nodes.back(); });
  return groups;
}

std::string groups_str(const Graph& g, const std::vector<FusedGroup>& groups) {
  std::ostringstream os;
  for (const FusedGroup& grp : groups) {
    for (size_t k = 0; k < grp.outputs.size(); ++k) os << (k ? ", " : "") << "%" << g.value(grp.outputs[k]).name;
    os << " = ";
    for (size_t k = 0; k < grp.nodes.size(); ++k) os << (k ? "+" : "") << g.nodes[grp.nodes[k]].op;
    os << "(";
    for (size_t k = 0; k < grp.inputs.size(); ++k) os << (k ? ", " : "") << "%" << g.value(grp.inputs[k]).name;
    os << ")\n";
  }
  return os.str();
}

}  // namespace kiln::graph
