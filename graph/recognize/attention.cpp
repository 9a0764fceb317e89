// recognize_attention (graph/recognize.h): matched from the MatMul that
// applies the probabilities to the values, back through the Softmax, the
// optional Where and Add of the masks, the scale, to the MatMul of the
// queries and the keys.
#include <algorithm>

#include "graph/recognize.h"
#include "graph/recognize/match.h"
#include "graph/shape_util.h"

namespace kiln::graph {
namespace {

using recognize::Matcher;
using recognize::Product;
using recognize::product_of;

struct AttentionMatch {
  int q = -1, kt = -1, v = -1, mask = Node::kNone, keep = Node::kNone;
  int product = -1;  // Q·Kᵀ before the scale
  double scale = 1.0, fill = 0.0;
};

bool is_f32(const Graph& g, int id) { return g.value(id).dtype == DataType::Float32(); }

// Whether `operand` broadcasts onto `shape` without growing it.
bool broadcasts_onto(const std::vector<int64_t>& operand, const std::vector<int64_t>& shape) {
  if (operand.size() > shape.size()) return false;
  for (size_t k = 0; k < operand.size(); ++k) {
    const int64_t o = operand[operand.size() - 1 - k], s = shape[shape.size() - 1 - k];
    if (o != s && o != 1) return false;
  }
  return true;
}

// `id` as a constant factor times the product of the queries and the
// keys: the factor into `scale`, the nodes on the way into `nodes`.
bool scaled_product(const Matcher& m, int id, AttentionMatch& r, std::vector<const Node*>& nodes) {
  const Product p = product_of(m, id);
  if (p.factors.size() != 1) return false;
  const Node* qk = m.writer(p.factors[0], "MatMul");
  if (!qk || qk->inputs.size() != 2) return false;
  std::vector<const Node*> found = p.nodes;
  found.push_back(qk);
  double scale = p.coefficient;
  int operands[2];
  for (size_t k = 0; k < 2; ++k) {
    // A scale on the queries or the keys before the product (q / sqrt(d)).
    const Product side = product_of(m, qk->inputs[k]);
    if (side.factors.size() == 1 && !side.nodes.empty() && m.readers(qk->inputs[k]) == 1) {
      scale *= side.coefficient;
      found.insert(found.end(), side.nodes.begin(), side.nodes.end());
      operands[k] = side.factors[0];
    } else {
      operands[k] = qk->inputs[k];
    }
  }
  r.product = p.factors[0];
  r.q = operands[0];
  r.kt = operands[1];
  r.scale = scale;
  nodes.insert(nodes.end(), found.begin(), found.end());
  return true;
}

std::optional<AttentionMatch> match(const Matcher& m, const Node& pv) {
  const Graph& g = m.graph();
  if (pv.inputs.size() != 2) return std::nullopt;
  const Node* softmax = m.writer(pv.inputs[0], "Softmax");
  if (!softmax) return std::nullopt;
  const std::vector<int64_t>& scores = g.value(pv.inputs[0]).shape;
  const int64_t rank = static_cast<int64_t>(scores.size());
  const int64_t axis = softmax->attr_int("axis", g.opset >= 13 ? -1 : 1);
  if (rank < 2 || (axis != -1 && axis != rank - 1)) return std::nullopt;

  AttentionMatch r;
  std::vector<const Node*> nodes = {&pv, softmax};
  int z = softmax->inputs.at(0);
  if (const Node* where = m.writer(z, "Where")) {
    const std::optional<double> fill = m.scalar(where->inputs.at(2));
    if (!fill || !broadcasts_onto(g.value(where->inputs[0]).shape, scores)) return std::nullopt;
    r.keep = where->inputs[0];
    r.fill = *fill;
    nodes.push_back(where);
    z = where->inputs[1];
  }
  if (const Node* add = m.writer(z, "Add"); add && add->inputs.size() == 2) {
    for (size_t k = 0; k < 2 && r.q < 0; ++k) {
      const int mask = add->inputs[1 - k];
      if (!is_f32(g, mask) || !broadcasts_onto(g.value(mask).shape, scores)) continue;
      std::vector<const Node*> found;
      if (!scaled_product(m, add->inputs[k], r, found)) continue;
      r.mask = mask;
      nodes.push_back(add);
      nodes.insert(nodes.end(), found.begin(), found.end());
    }
    if (r.q < 0) return std::nullopt;
  } else if (!scaled_product(m, z, r, nodes)) {
    return std::nullopt;
  }
  r.v = pv.inputs[1];
  const std::vector<int64_t>&q = g.value(r.q).shape, &kt = g.value(r.kt).shape, &v = g.value(r.v).shape;
  if (g.value(r.product).shape != scores || !is_f32(g, r.q) || !is_f32(g, r.kt) || !is_f32(g, r.v) ||
      q.size() < 2 || q.size() != kt.size() || q.size() != v.size())
    return std::nullopt;
  std::vector<const Node*> inner(nodes.begin() + 1, nodes.end());
  if (!m.private_to(inner, nodes)) return std::nullopt;
  return r;
}

}  // namespace

Graph recognize_attention(const Graph& in) {
  return recognize::replace_matches(in, "MatMul", [](const Matcher& m, const Node& pv, Graph&) {
    const std::optional<AttentionMatch> r = match(m, pv);
    if (!r) return std::optional<recognize::Replacement>();
    Node a;
    a.name = pv.name;
    a.op = kAttention;
    a.inputs = {r->q, r->kt, r->v, r->mask, r->keep};
    a.outputs = pv.outputs;
    a.attrs["scale"] = r->scale;
    if (r->keep != Node::kNone) a.attrs["fill"] = r->fill;
    return std::optional<recognize::Replacement>({&pv, std::move(a)});
  });
}

}  // namespace kiln::graph
