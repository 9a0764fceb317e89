// recognize_gelu (graph/recognize.h): matched from the outermost Mul, the
// product 0.5 * x * (1 + f(u)) read through recognize::product_of, so
// that every order and grouping of the Muls (and Divs by constants) that
// exporters write is one pattern.
#include <algorithm>
#include <cmath>

#include "graph/recognize.h"
#include "graph/recognize/match.h"

namespace kiln::graph {
namespace {

using recognize::Matcher;
using recognize::Product;
using recognize::product_of;

bool near(double v, double want) { return std::abs(v - want) <= 1e-4 * std::abs(want); }

void append(std::vector<const Node*>& to, const std::vector<const Node*>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// `t` = 1 + f(u) for f the op `fn`: the Add and the f node, else nulls.
std::pair<const Node*, const Node*> one_plus(const Matcher& m, int t, const char* fn) {
  const Node* add = m.writer(t, "Add");
  if (!add || add->inputs.size() != 2) return {nullptr, nullptr};
  for (int k = 0; k < 2; ++k)
    if (m.is_scalar(add->inputs[static_cast<size_t>(k)], 1.0))
      if (const Node* f = m.writer(add->inputs[static_cast<size_t>(1 - k)], fn)) return {add, f};
  return {nullptr, nullptr};
}

// u = x / sqrt(2): the nodes computing it, appended to `nodes`.
bool erf_argument(const Matcher& m, int u, int x, std::vector<const Node*>& nodes) {
  const Product p = product_of(m, u);
  if (!near(p.coefficient, 1 / std::sqrt(2.0)) || p.factors != std::vector<int>{x}) return false;
  append(nodes, p.nodes);
  return true;
}

// u = sqrt(2 / pi) * (x + 0.044715 * x^3), x^3 a Pow or a product.
bool tanh_argument(const Matcher& m, int u, int x, std::vector<const Node*>& nodes) {
  const Product outer = product_of(m, u);
  if (!near(outer.coefficient, std::sqrt(2 / M_PI)) || outer.factors.size() != 1) return false;
  const Node* sum = m.writer(outer.factors[0], "Add");
  if (!sum || m.readers(outer.factors[0]) != 1) return false;
  const int cube = Matcher::other_input(*sum, x);
  if (cube < 0) return false;
  const Product c = product_of(m, cube);
  if (!near(c.coefficient, 0.044715)) return false;
  std::vector<const Node*> found = outer.nodes;
  found.push_back(sum);
  append(found, c.nodes);
  if (c.factors == std::vector<int>{x, x, x}) {
    append(nodes, found);
    return true;
  }
  const Node* pow = c.factors.size() == 1 ? m.writer(c.factors[0], "Pow") : nullptr;
  if (!pow || pow->inputs.at(0) != x || !m.is_scalar(pow->inputs.at(1), 3.0)) return false;
  found.push_back(pow);
  append(nodes, found);
  return true;
}

struct GeluMatch {
  int x = -1;
  bool tanh = false;
};

std::optional<GeluMatch> match(const Matcher& m, const Node& root) {
  const Product p = product_of(m, root.outputs.at(0));
  if (!near(p.coefficient, 0.5) || p.factors.size() != 2) return std::nullopt;
  for (size_t k = 0; k < 2; ++k) {
    const int x = p.factors[k], t = p.factors[1 - k];
    if (m.graph().value(x).dtype != DataType::Float32() || m.readers(t) != 1) continue;
    for (const bool tanh : {false, true}) {
      const auto [add, f] = one_plus(m, t, tanh ? "Tanh" : "Erf");
      if (!add || m.readers(f->outputs.at(0)) != 1) continue;
      std::vector<const Node*> nodes = p.nodes;
      nodes.push_back(add);
      nodes.push_back(f);
      const int u = f->inputs.at(0);
      if (!(tanh ? tanh_argument(m, u, x, nodes) : erf_argument(m, u, x, nodes))) continue;
      std::vector<const Node*> inner;
      for (const Node* n : nodes)
        if (n != &root) inner.push_back(n);
      if (m.private_to(inner, nodes)) return GeluMatch{x, tanh};
    }
  }
  return std::nullopt;
}

}  // namespace

Graph recognize_gelu(const Graph& in) {
  return recognize::replace_matches(in, "Mul", [](const Matcher& m, const Node& root, Graph&) {
    const std::optional<GeluMatch> r = root.outputs.size() == 1 ? match(m, root) : std::nullopt;
    if (!r) return std::optional<recognize::Replacement>();
    Node gelu;
    gelu.name = root.name;
    gelu.op = "Gelu";
    gelu.inputs = {r->x};
    gelu.outputs = root.outputs;
    if (r->tanh) gelu.attrs["approximate"] = std::string("tanh");
    return std::optional<recognize::Replacement>({&root, std::move(gelu)});
  });
}

}  // namespace kiln::graph
