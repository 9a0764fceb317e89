#include "graph/recognize/match.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln::graph::recognize {

Matcher::Matcher(const Graph& g)
    : g_(g), writer_(g.values.size(), -1), readers_(g.values.size(), 0), reader_(g.values.size(), -1) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int id : g.nodes[i].outputs)
      if (id != Node::kNone) writer_[static_cast<size_t>(id)] = static_cast<int>(i);
    for (int id : g.nodes[i].inputs)
      if (id != Node::kNone) {
        ++readers_[static_cast<size_t>(id)];
        reader_[static_cast<size_t>(id)] = static_cast<int>(i);
      }
  }
  for (int id : g.outputs) ++readers_[static_cast<size_t>(id)];
}

const Node* Matcher::writer(int id) const {
  if (id < 0 || writer_[static_cast<size_t>(id)] < 0) return nullptr;
  return &g_.nodes[static_cast<size_t>(writer_[static_cast<size_t>(id)])];
}

const Node* Matcher::writer(int id, const char* op) const {
  const Node* n = writer(id);
  return n && n->op == op ? n : nullptr;
}

const Node* Matcher::sole_reader(int id) const {
  if (readers(id) != 1 || reader_[static_cast<size_t>(id)] < 0) return nullptr;  // read once, by an output
  return &g_.nodes[static_cast<size_t>(reader_[static_cast<size_t>(id)])];
}

bool Matcher::private_to(const std::vector<const Node*>& inner, const std::vector<const Node*>& pattern) const {
  for (const Node* n : inner)
    for (int out : n->outputs) {
      if (out == Node::kNone) continue;
      int inside = 0;
      for (const Node* p : pattern) inside += static_cast<int>(std::count(p->inputs.begin(), p->inputs.end(), out));
      if (inside != readers(out)) return false;
    }
  return true;
}

std::optional<double> Matcher::scalar(int id) const {
  if (id < 0) return std::nullopt;
  const Value& v = g_.value(id);
  if (!v.is_constant() || !v.dtype.is_float() || v.numel() != 1) return std::nullopt;
  return v.data->get(0);
}

bool Matcher::is_scalar(int id, double want) const {
  const std::optional<double> v = scalar(id);
  return v && std::abs(*v - want) <= 1e-4 * std::abs(want);
}

int Matcher::other_input(const Node& n, int id) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == id && n.inputs[1] != id) return n.inputs[1];
  if (n.inputs[1] == id && n.inputs[0] != id) return n.inputs[0];
  return -1;
}

namespace {

void walk(const Matcher& m, int id, bool root, Product& p) {
  if (std::optional<double> c = m.scalar(id)) {
    p.coefficient *= *c;
    return;
  }
  const Node* n = m.writer(id);
  const bool inner_ok = root || m.readers(id) == 1;
  if (n && inner_ok && n->op == "Mul" && n->inputs.size() == 2) {
    p.nodes.push_back(n);
    walk(m, n->inputs[0], false, p);
    walk(m, n->inputs[1], false, p);
    return;
  }
  if (n && inner_ok && n->op == "Div" && n->inputs.size() == 2) {
    if (std::optional<double> d = m.scalar(n->inputs[1]); d && *d != 0) {
      p.nodes.push_back(n);
      p.coefficient /= *d;
      walk(m, n->inputs[0], false, p);
      return;
    }
  }
  p.factors.push_back(id);
}

}  // namespace

Product product_of(const Matcher& m, int id) {
  Product p;
  walk(m, id, true, p);
  return p;
}

Graph replace_matches(const Graph& in, const std::string& op, const Recognizer& recognize) {
  Graph out = in;
  const Matcher m(in);
  for (const Node& n : in.nodes) {
    if (n.op != op) continue;
    if (std::optional<Replacement> r = recognize(m, n, out))
      out.nodes[static_cast<size_t>(r->last - in.nodes.data())] = std::move(r->node);
  }
  return out;
}

}  // namespace kiln::graph::recognize
