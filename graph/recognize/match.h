// What the recognizers of graph/recognize.h read of a graph while they
// match a decomposed operator: who writes each value, how many read it,
// and the scalar constants exporters write (0.5, sqrt(2), epsilon).
//
// A match claims the nodes inside a pattern only when nothing outside it
// reads their outputs (`private_to`): a recognizer then replaces the
// pattern's last node by the fused one, and eliminate_dead_code drops the
// rest. A value read elsewhere too keeps the pattern as it is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <set>
#include <vector>

#include "graph/graph.h"

namespace kiln::graph::recognize {

class Matcher {
 public:
  explicit Matcher(const Graph& g);

  const Graph& graph() const { return g_; }
  // The node that writes `id`, or nullptr for an input or a constant.
  const Node* writer(int id) const;
  // The writer of `id` when its op is `op`, else nullptr.
  const Node* writer(int id, const char* op) const;
  // Readers of `id` by node (a node reading it twice counts twice); graph
  // outputs count as readers.
  int readers(int id) const { return id < 0 ? 0 : readers_[static_cast<size_t>(id)]; }
  // The node that reads `id`, when it is read once and is no graph
  // output; else nullptr.
  const Node* sole_reader(int id) const;
  // Every read of each output of `inner` is by a node of `pattern`, and
  // none of them is a graph output.
  bool private_to(const std::vector<const Node*>& inner, const std::vector<const Node*>& pattern) const;

  // The value of a float constant of one element, or nothing.
  std::optional<double> scalar(int id) const;
  // Whether `id` is a float constant of one element equal to `want`
  // within a relative 1e-4 (exporters round sqrt(2) and 1/sqrt(2)).
  bool is_scalar(int id, double want) const;

  // The input of binary `n` that is not `id` (n reads `id` once), or -1.
  static int other_input(const Node& n, int id);

 private:
  const Graph& g_;
  std::vector<int> writer_;   // node index per value, -1 for none
  std::vector<int> readers_;  // per value
  std::vector<int> reader_;   // per value: the last node index reading it, -1 for none
};

// A factorization of `id` through Mul and Div nodes by constant scalars:
// id = coefficient * product(factors), every Mul and Div on the way in
// `nodes`. A Div by anything but a scalar constant, or a node whose
// output is read elsewhere (not in `nodes` alone), stops the walk there.
struct Product {
  double coefficient = 1.0;
  std::vector<int> factors;        // value ids, not scalar constants
  std::vector<const Node*> nodes;  // the Mul and Div nodes walked
};
Product product_of(const Matcher& m, int id);

// What a recognizer puts in place of a match: `node`, where `last` (the
// pattern's last node, whose outputs it writes) was.
struct Replacement {
  const Node* last = nullptr;
  Node node;
};
// Tried on each node of the op a pattern is matched from; `out` is the
// graph being written, to add the constants a replacement reads.
using Recognizer = std::function<std::optional<Replacement>(const Matcher& m, const Node& root, Graph& out)>;

// `in` with every match `recognize` finds from a node of op `op` replaced.
Graph replace_matches(const Graph& in, const std::string& op, const Recognizer& recognize);

}  // namespace kiln::graph::recognize
