// The operators kiln compiles, one entry each: the single list that the
// importer checks a model against, `kiln graph --ops` prints, docs/onnx.md
// describes, fusion reads patterns from and lowering dispatches on.
//
// An entry holds everything kiln knows of one operator:
//   - `infer`, its static shape rule: from the dtypes and shapes of a
//     node's inputs (and the contents of those that must be constant:
//     Reshape's shape, Slice's starts) it sets its outputs'. Nodes whose
//     outputs depend on shapes alone (Shape, ConstantOfShape, Constant) are
//     folded here, their outputs made constants;
//   - `lower`, its compute definition (tir/te, built from ops/): what
//     constant folding, the reference executor and task extraction all
//     evaluate; empty for an operator that always folds;
//   - `pattern`, what fusion may do with it (graph/fuse.h);
//   - `first_parameter`, the first input it reads from the graph as a
//     constant parameter rather than computes with (a Reshape's shape),
//     and `data_after_parameters`, the inputs past it that are data
//     nonetheless (STFT's window, between its frame step and length).
//
// The entries are written by family in graph/operators/ (elementwise,
// reductions and normalizations, data movement, neural-network layers,
// folded, and the blocked internal operators of graph/layout.h). Opsets 1
// to 17 are read: where an operator moved an attribute to an input (Slice
// at 10, Pad and Clip at 11, Squeeze and Unsqueeze at 13), both forms are
// taken.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tir/te/tensor.h"

namespace kiln::graph {

// The newest default-domain opset the importer reads.
constexpr int64_t kMaxOpset = 17;

// What fusion (graph/fuse.h) may do with an operator, after TVM's
// OpPattern.
enum class OpPattern {
  kElementwise,  // one output element from the same element of each input (broadcast included)
  kInjective,    // pure indexing: reshape, transpose, slice, concat, pad, gather
  kReduction,    // pools, Softmax, LayerNormalization, reductions (inference BatchNormalization is elementwise)
  kAnchor,       // Conv, Gemm, MatMul: the work a group is tuned for
};

using InferFn = std::function<void(const Node& n, Graph& g)>;
using LowerFn =
    std::function<std::vector<te::Tensor>(const Graph& g, const Node& n, const std::vector<te::Tensor>& inputs)>;

struct OpDef {
  std::string name;     // the ONNX op type (kiln.* for internal operators)
  std::string summary;  // one line, for --ops and docs/onnx.md
  OpPattern pattern = OpPattern::kElementwise;
  // Sets the dtype and shape (and for a folded op the contents) of each of
  // the node's outputs. Throws kiln::Error naming the node for inputs it
  // cannot take. Empty for an internal operator, whose pass sets them.
  InferFn infer;
  // The node's outputs as compute tensors, one per output (undefined for
  // an omitted one), from its inputs (undefined for omitted and parameter
  // inputs). Throws kiln::Error naming the node for an attribute it has
  // no definition for. Empty for an operator that always folds.
  LowerFn lower;
  // Inputs from this index on are parameters (is_parameter_input)...
  size_t first_parameter = SIZE_MAX;
  // ...but these, data among them (STFT's window, between its frame step
  // and its frame length).
  std::vector<size_t> data_after_parameters = {};

  bool is_parameter(size_t i) const {
    if (i < first_parameter) return false;
    for (size_t d : data_after_parameters)
      if (d == i) return false;
    return true;
  }
};

// The ONNX operators of the default domain, in the order --ops lists them.
const std::vector<OpDef>& op_table();

// The ONNX operator `op`, or nullptr: what the importer accepts.
const OpDef* find_op_def(const std::string& op);

// Throws UnsupportedError for a node whose operator has no entry, naming
// the node, its op type and why: the reason for an operator kiln refuses
// on purpose (an output shape that depends on data, random numbers,
// control flow, sequences, strings), or that it is not supported yet.
[[noreturn]] void refuse_operator(const Node& n, int64_t opset);

// The entry of operator `op`, internal ones included, or nullptr.
const OpDef* find_any_op_def(const std::string& op);

// The entry of a node's operator, internal ones (graph/layout.h)
// included. A node of an operator with no entry is a bug in the pass that
// made it: an internal error.
const OpDef& op_def(const Node& n);

// Runs every node's shape rule, in order: each output's dtype and shape
// (and a folded node's contents) from its inputs; a node whose inputs are
// all constants is then evaluated (graph/reference.h), its outputs made
// constants, when that takes at most `max_fold_steps` steps of the
// reference interpreter (ImportOptions::max_fold_steps). Throws
// kiln::Error naming the first node whose operator is not in the table or
// whose inputs its rule refuses.
void infer_shapes(Graph& g, double max_fold_steps);

}  // namespace kiln::graph
