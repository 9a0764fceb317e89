// The ONNX operators kiln compiles, one entry each: the single list that
// the importer checks a model against, `kiln graph --ops` prints and
// docs/onnx.md describes.
//
// An entry's `infer` is the operator's static shape rule: from the dtypes
// and shapes of a node's inputs (and the contents of those that must be
// constant: Reshape's shape, Slice's starts) it sets its outputs'. Nodes
// whose outputs depend on shapes alone (Shape, ConstantOfShape, Constant)
// are folded here, their outputs made constants. Opsets 1 to 17 are read:
// where an operator moved an attribute to an input (Slice at 10, Pad and
// Clip at 11, Squeeze and Unsqueeze at 13), both forms are taken.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln::graph {

// The newest default-domain opset the importer reads.
constexpr int64_t kMaxOpset = 17;

struct OpDef {
  std::string name;     // the ONNX op type
  std::string summary;  // one line, for --ops and docs/onnx.md
  // Sets the dtype and shape (and for a folded op the contents) of each of
  // the node's outputs. Throws kiln::Error naming the node for inputs it
  // cannot take.
  std::function<void(const Node& n, Graph& g)> infer;
};

const std::vector<OpDef>& op_table();

// The entry for `op`, or nullptr.
const OpDef* find_op_def(const std::string& op);

// Runs every node's shape rule, in order: each output's dtype and shape
// (and a folded node's contents) from its inputs; a node whose inputs are
// all constants is then evaluated (graph/reference.h), its outputs made
// constants, when that takes at most `max_fold_steps` steps of the
// reference interpreter (ImportOptions::max_fold_steps). Throws
// kiln::Error naming the first node whose operator is not in the table or
// whose inputs its rule refuses.
void infer_shapes(Graph& g, double max_fold_steps);

}  // namespace kiln::graph
