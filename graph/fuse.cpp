#include "graph/fuse.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "graph/op_table.h"

namespace kiln::graph {
namespace {

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

}  // namespace

OpPattern op_pattern(const Node& n) { return op_def(n).pattern; }

std::vector<FusedGroup> fuse_operators(const Graph& g) {
  // Readers of each value, and whether it is a graph output.
  std::vector<std::vector<size_t>> readers(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int id : g.nodes[i].inputs)
      if (id != Node::kNone) readers[static_cast<size_t>(id)].push_back(i);
  std::vector<bool> is_output(g.values.size(), false);
  for (int id : g.outputs) is_output[static_cast<size_t>(id)] = true;

  std::vector<bool> taken(g.nodes.size(), false);
  std::vector<FusedGroup> groups;
  for (size_t start = 0; start < g.nodes.size(); ++start) {
    if (taken[start] || is_folded(g, g.nodes[start])) continue;
    FusedGroup group;
    group.nodes.push_back(start);
    taken[start] = true;
    const OpPattern head = op_pattern(g.nodes[start]);
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
      if (head == OpPattern::kAnchor || head == OpPattern::kReduction)
        joins = p == OpPattern::kElementwise && g.value(c_out).shape == g.value(out).shape;
      else
        joins = p == OpPattern::kElementwise || p == OpPattern::kInjective;
      // The reader reads the chain once (Mul(x, x) would need the value twice).
      joins = joins && std::count(c.inputs.begin(), c.inputs.end(), out) == 1;
      if (!joins) break;
      group.nodes.push_back(next[0]);
      taken[next[0]] = true;
    }
    for (int id : g.nodes[group.nodes.back()].outputs)
      if (id != Node::kNone) group.outputs.push_back(id);
    // Inputs: what the nodes read that no node of the group writes.
    std::set<int> inside;
    for (size_t i : group.nodes)
      for (int id : g.nodes[i].outputs) inside.insert(id);
    for (size_t i : group.nodes)
      for (int id : g.nodes[i].inputs)
        if (id != Node::kNone && !inside.count(id) &&
            std::find(group.inputs.begin(), group.inputs.end(), id) == group.inputs.end())
          group.inputs.push_back(id);
    groups.push_back(std::move(group));
  }
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
