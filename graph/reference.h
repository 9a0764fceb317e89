// The graph's reference execution: each node's compute definition
// (graph/lower.h) made a function of its own and run on the reference
// interpreter. What tests compare compiled models with, and what constant
// folding evaluates nodes with: slow, and right by construction.
#pragma once

#include <optional>
#include <vector>

#include "graph/graph.h"
#include "targets/runtime/ndarray.h"

namespace kiln::graph {

// The outputs of node `n` given the contents of its inputs (`inputs[i]`
// for input i; nullptr where omitted, or where the node reads it as a
// parameter from the graph).
std::vector<NDArray> evaluate_node(const Graph& g, const Node& n, const std::vector<const NDArray*>& inputs);

// evaluate_node, unless the node's function would take more than
// `max_steps` steps (loop iterations and statements, estimate_steps in
// tir/analysis/flops.h): then nothing runs and the answer is empty. What
// keeps constant folding at import from running the interpreter for
// minutes.
std::optional<std::vector<NDArray>> evaluate_node_within(const Graph& g, const Node& n,
                                                         const std::vector<const NDArray*>& inputs,
                                                         double max_steps);

// The graph's outputs for `inputs` (one per graph input, in order).
// Throws kiln::Error naming an input of the wrong dtype or shape.
std::vector<NDArray> run_reference(const Graph& g, const std::vector<NDArray>& inputs);

}  // namespace kiln::graph
