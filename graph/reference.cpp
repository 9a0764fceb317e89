#include "graph/reference.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "graph/lower.h"
#include "ops/common.h"
#include "tir/analysis/flops.h"
#include "tir/interp/interpreter.h"
#include "tir/te/create_prim_func.h"

namespace kiln::graph {

std::optional<std::vector<NDArray>> evaluate_node_within(const Graph& g, const Node& n,
                                                         const std::vector<const NDArray*>& inputs,
                                                         double max_steps) {
  std::vector<te::Tensor> args, in(n.inputs.size());
  std::vector<HostBuffer> buffers;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!inputs.at(i) || is_parameter_input(n, i)) continue;
    const Value& v = g.value(n.inputs[i]);
    in[i] = te::placeholder(ops::i32s(v.shape), v.dtype, "in" + std::to_string(i));
    args.push_back(in[i]);
    // The interpreter only reads inputs; a HostBuffer holds a mutable pointer.
    buffers.push_back({v.dtype, v.shape, const_cast<void*>(inputs[i]->data())});
  }
  // One result per output of the node; an omitted output is not computed
  // and stays empty.
  // (A node may write fewer outputs than its definition makes: none at all.)
  std::vector<te::Tensor> outs = lower_node(g, n, in);
  outs.resize(std::min(outs.size(), n.outputs.size()));
  for (size_t i = 0; i < outs.size(); ++i)
    if (n.outputs[i] != Node::kNone) args.push_back(outs[i]);
  const PrimFunc f = te::create_prim_func(args, "node");
  if (estimate_steps(f) > max_steps) return std::nullopt;
  std::vector<NDArray> results(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    if (n.outputs[i] == Node::kNone) continue;
    const Value& v = g.value(n.outputs[i]);
    results[i] = NDArray(v.dtype, v.shape);
    buffers.push_back(results[i].host_buffer());
  }
  interpret(f, buffers);
  return results;
}

std::vector<NDArray> evaluate_node(const Graph& g, const Node& n, const std::vector<const NDArray*>& inputs) {
  return *evaluate_node_within(g, n, inputs, std::numeric_limits<double>::infinity());
}

std::vector<NDArray> run_reference(const Graph& g, const std::vector<NDArray>& inputs) {
  if (inputs.size() != g.inputs.size())
    KILN_USER_ERROR() << "the graph takes " << g.inputs.size() << " inputs, not " << inputs.size();
  std::vector<const NDArray*> data(g.values.size(), nullptr);
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].is_constant()) data[i] = g.values[i].data.get();
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Value& v = g.value(g.inputs[k]);
    if (inputs[k].dtype() != v.dtype || inputs[k].shape() != v.shape)
      KILN_USER_ERROR() << "input '" << v.name << "' is " << type_str(v) << "; got " << inputs[k].dtype().str()
                        << " of another shape";
    data[static_cast<size_t>(g.inputs[k])] = &inputs[k];
  }
  std::vector<std::unique_ptr<NDArray>> held;
  for (const Node& n : g.nodes) {
    bool folded = true;
    for (int id : n.outputs) folded = folded && (id == Node::kNone || g.value(id).is_constant());
    if (folded) continue;
    std::vector<const NDArray*> in;
    for (int id : n.inputs) in.push_back(id == Node::kNone ? nullptr : data[static_cast<size_t>(id)]);
    std::vector<NDArray> out = evaluate_node(g, n, in);
    for (size_t i = 0; i < out.size(); ++i) {
      if (n.outputs[i] == Node::kNone) continue;
      held.push_back(std::make_unique<NDArray>(std::move(out[i])));
      data[static_cast<size_t>(n.outputs[i])] = held.back().get();
    }
  }
  std::vector<NDArray> results;
  for (int id : g.outputs) {
    if (!data[static_cast<size_t>(id)]) KILN_USER_ERROR() << "output '" << g.value(id).name << "' is never computed";
    results.push_back(data[static_cast<size_t>(id)]->copy());
  }
  return results;
}

}  // namespace kiln::graph
