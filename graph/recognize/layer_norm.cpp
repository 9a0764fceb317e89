// recognize_layer_norm (graph/recognize.h): matched from its Div, the one
// node every form has, outward.
#include <algorithm>

#include "graph/recognize.h"
#include "graph/recognize/match.h"

namespace kiln::graph {
namespace {

using recognize::Matcher;

// The axes of a ReduceMean that keeps its dims and reduces the trailing
// axes from some axis on: that axis, else -1.
int64_t trailing_mean_axis(const Node& n, int64_t rank) {
  if (n.attr_int("keepdims", 1) != 1 || !n.has_attr("axes")) return -1;
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i)) return -1;
  return axes.empty() ? -1 : axes.front();
}

// Whether `shape`, its leading 1s dropped, is `normalized`'s.
bool fits(std::vector<int64_t> shape, std::vector<int64_t> normalized) {
  auto strip = [](std::vector<int64_t>& s) {
    while (!s.empty() && s.front() == 1) s.erase(s.begin());
  };
  strip(shape);
  strip(normalized);
  return shape == normalized;
}

struct LayerNormMatch {
  const Node* last = nullptr;  // the node whose output is the normalized value
  int x = -1, scale = -1, bias = -1;
  int64_t axis = 0;
  double epsilon = 0;
};

std::optional<LayerNormMatch> match(const Matcher& m, const Node& div) {
  const Graph& g = m.graph();
  if (div.inputs.size() != 2) return std::nullopt;
  const int d = div.inputs[0];
  const Node* sqrt = m.writer(div.inputs[1], "Sqrt");
  const Node* sub = m.writer(d, "Sub");
  if (!sqrt || !sub) return std::nullopt;
  const Node* add_eps = m.writer(sqrt->inputs.at(0), "Add");
  if (!add_eps || add_eps->inputs.size() != 2) return std::nullopt;
  const bool eps_second = m.scalar(add_eps->inputs[1]).has_value();
  const int var = add_eps->inputs[eps_second ? 0 : 1];
  const std::optional<double> eps = m.scalar(add_eps->inputs[eps_second ? 1 : 0]);
  const Node* mean_sq = m.writer(var, "ReduceMean");
  if (!eps || !mean_sq) return std::nullopt;
  const Node* square = m.writer(mean_sq->inputs.at(0));
  if (!square || square->inputs.size() != 2 ||
      !((square->op == "Pow" && square->inputs[0] == d && m.is_scalar(square->inputs[1], 2.0)) ||
        (square->op == "Mul" && square->inputs[0] == d && square->inputs[1] == d)))
    return std::nullopt;
  const int x = sub->inputs.at(0);
  const Node* mean = m.writer(sub->inputs.at(1), "ReduceMean");
  if (!mean || mean->inputs.at(0) != x) return std::nullopt;
  const Value& xv = g.value(x);
  if (xv.dtype != DataType::Float32()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(xv.shape.size());
  const int64_t axis = trailing_mean_axis(*mean, rank);
  if (axis < 0 || trailing_mean_axis(*mean_sq, rank) != axis) return std::nullopt;

  LayerNormMatch r{&div, x, -1, -1, axis, *eps};
  std::vector<const Node*> inner = {mean, sub, square, mean_sq, add_eps, sqrt};
  const std::vector<int64_t> normalized(xv.shape.begin() + axis, xv.shape.end());
  // Then the optional affine part: a Mul by a constant scale, an Add of a
  // constant bias, each of the normalized shape.
  auto affine = [&](const char* op, int& param) {
    const int out = r.last->outputs.at(0);
    const Node* n = m.sole_reader(out);
    if (!n || n->op != op) return;
    const int p = Matcher::other_input(*n, out);
    if (p < 0 || !g.value(p).is_constant() || g.value(p).dtype != DataType::Float32() ||
        !fits(g.value(p).shape, normalized) || g.value(n->outputs.at(0)).shape != xv.shape)
      return;
    inner.push_back(r.last);
    r.last = n;
    param = p;
  };
  affine("Mul", r.scale);
  if (r.scale >= 0) affine("Add", r.bias);
  std::vector<const Node*> pattern = inner;
  pattern.push_back(r.last);
  if (!m.private_to(inner, pattern)) return std::nullopt;
  return r;
}

// A constant of `shape` filled with `v`.
NDArray filled(const std::vector<int64_t>& shape, double v) {
  NDArray a(DataType::Float32(), shape);
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, v);
  return a;
}

}  // namespace

Graph recognize_layer_norm(const Graph& in) {
  return recognize::replace_matches(in, "Div", [](const Matcher& m, const Node& div, Graph& out) {
    const std::optional<LayerNormMatch> r = match(m, div);
    if (!r) return std::optional<recognize::Replacement>();
    const std::vector<int64_t>& shape = m.graph().value(r->x).shape;
    const std::vector<int64_t> normalized(shape.begin() + r->axis, shape.end());
    Node ln;
    ln.name = r->last->name;
    ln.op = "LayerNormalization";
    const int scale = r->scale >= 0 ? r->scale : out.add_constant(ln.name + "_scale", filled(normalized, 1.0));
    const int bias = r->bias >= 0 ? r->bias : out.add_constant(ln.name + "_bias", filled(normalized, 0.0));
    ln.inputs = {r->x, scale, bias};
    ln.outputs = {r->last->outputs.at(0)};
    ln.attrs["axis"] = r->axis;
    ln.attrs["epsilon"] = r->epsilon;
    return std::optional<recognize::Replacement>({r->last, std::move(ln)});
  });
}

}  // namespace kiln::graph
