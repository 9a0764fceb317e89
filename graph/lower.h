// Each graph operator as a compute definition (tir/te, built from ops/):
// the one definition of what a node computes, which constant folding, the
// reference executor and task extraction all take. The definitions are
// the `lower` of each operator's entry in graph/op_table.h; these are the
// calls on a node.
//
// A node's inputs come in as tensors (placeholders, or the outputs of the
// nodes before it in a fused group); inputs its rule reads as parameters
// (Reshape's shape, Slice's starts, Clip's bounds: constants, by
// is_parameter_input) come in undefined and are read from the graph.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "tir/te/tensor.h"

namespace kiln::graph {

// Whether input `i` of an `op` node is read from the graph as a constant
// parameter rather than computed with.
bool is_parameter_input(const Node& n, size_t i);
// The same by ONNX op type, before a node exists (false for an operator
// kiln does not take).
bool is_parameter_input(const std::string& op, size_t i);

// Whether `n` has a compute definition (the rest of the table folds at
// import, or is not lowered yet: lower_node then throws naming the node).
bool is_lowered(const Node& n);

// The node's outputs as compute tensors, from `inputs` (one per input of
// the node; undefined for omitted and parameter inputs). Throws kiln::Error
// naming the node for an operator or attribute without a definition.
std::vector<te::Tensor> lower_node(const Graph& g, const Node& n, const std::vector<te::Tensor>& inputs);

}  // namespace kiln::graph
