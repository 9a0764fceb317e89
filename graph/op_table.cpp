#include "graph/op_table.h"

#include <unordered_map>

#include "core/error.h"
#include "graph/lower.h"
#include "graph/operators/families.h"
#include "graph/reference.h"
#include "graph/shape_util.h"
#include "graph/unsupported.h"

namespace kiln::graph {
namespace {

std::vector<OpDef> concatenated(std::initializer_list<std::vector<OpDef>> families) {
  std::vector<OpDef> all;
  for (const std::vector<OpDef>& f : families) all.insert(all.end(), f.begin(), f.end());
  return all;
}

// Every entry by name, internal operators included.
const std::unordered_map<std::string, const OpDef*>& by_name() {
  static const std::vector<OpDef> internal = concatenated({operators::blocked_ops(), operators::fused_ops()});
  static const std::unordered_map<std::string, const OpDef*> index = [] {
    std::unordered_map<std::string, const OpDef*> m;
    for (const std::vector<OpDef>* table : {&op_table(), &internal})
      for (const OpDef& d : *table)
        KILN_ICHECK(m.emplace(d.name, &d).second) << "operator '" << d.name << "' is defined twice";
    return m;
  }();
  return index;
}

}  // namespace

const std::vector<OpDef>& op_table() {
  static const std::vector<OpDef> table =
      concatenated({operators::nn_ops(), operators::elementwise_ops(), operators::quantize_ops(), operators::qlinear_ops(), operators::reduction_ops(),
                    operators::normalization_ops(), operators::selection_ops(), operators::recurrent_ops(),
                    operators::spectral_ops(), operators::unpool_ops(), operators::loss_ops(), operators::movement_ops(),
                    operators::resize_ops(), operators::folded_ops()});
  return table;
}

const OpDef* find_op_def(const std::string& op) {
  auto it = by_name().find(op);
  if (it == by_name().end() || !it->second->infer) return nullptr;  // internal operators are not ONNX's
  return it->second;
}

const OpDef* find_any_op_def(const std::string& op) {
  auto it = by_name().find(op);
  return it == by_name().end() ? nullptr : it->second;
}

const OpDef& op_def(const Node& n) {
  const OpDef* def = find_any_op_def(n.op);
  KILN_ICHECK(def) << n.describe() << ": no operator '" << n.op << "' in graph/op_table.h";
  return *def;
}

namespace {

// A node whose inputs are all constants computes a constant: evaluated
// now (graph/reference.h), so that the shapes after it are known (the
// Shape -> Gather -> Concat -> Reshape chains of exported models).
// Past `max_steps` (ImportOptions::max_fold_steps) the node is left to
// run compiled.
void fold_if_constant(const Node& n, Graph& g, double max_steps) {
  if (!is_lowered(n)) return;
  std::vector<const NDArray*> in;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value* v = g.input(n, i);
    if (v && !v->is_constant()) return;
    in.push_back(v ? v->data.get() : nullptr);
  }
  if (in.empty()) return;
  std::optional<std::vector<NDArray>> out = evaluate_node_within(g, n, in, max_steps);
  if (!out) return;
  for (size_t i = 0; i < out->size(); ++i)
    if (n.outputs[i] != Node::kNone) set_constant_output(g, n, i, std::move((*out)[i]));
}

}  // namespace

void infer_shapes(Graph& g, double max_fold_steps) {
  for (const Node& n : g.nodes) {
    const OpDef* def = find_op_def(n.op);
    if (!def) refuse_operator(n, g.opset);
    def->infer(n, g);
    fold_if_constant(n, g, max_fold_steps);
  }
}

}  // namespace kiln::graph
