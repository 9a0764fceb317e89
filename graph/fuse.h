// Operator fusion: which nodes one compiled function computes together,
// after TVM's FuseOps in its common cases.
//
//   %c = Conv(%x, %w)          ┐
//   %b = BatchNormalization(%c) │ one group: the anchor (Conv) and the
//   %r = Relu(%b)              ┘ elementwise chain after it
//   %s = Add(%r, %skip)          ... a residual add too: %skip is an input
//
// A group is a chain: each node's output is read by the next node alone
// (and is no graph output), so nothing outside needs the values inside,
// which then never reach memory once the schedule inlines them. Anchors
// (Conv, Gemm, MatMul) and reductions (pools, Softmax, LayerNormalization,
// ReduceMean) take the elementwise nodes after them whose result has the
// anchor's shape, and reshapes (Reshape, Flatten, Squeeze, Unsqueeze:
// the same elements in the same order) between them, and a Slice that
// keeps a corner (graph/pad_dense.h's, after a padded product); elementwise and data-movement nodes (reshapes, slices,
// transposes) with no anchor before them form chains of their own.
// Folded nodes (their outputs constants) belong to no group.
//
// Then index maps join the product they feed: a group of data movement
// alone whose one output only a group starting with MatMul, Gemm or
// kiln.Attention reads becomes part of that group, in front, so that the
// head split and merge around attention cost no copies:
//
//   %q = Reshape+Transpose(%q_flat)          ┐ one group:
//   %k = Reshape+Transpose(%k_flat)          │ Reshape+Transpose+...+kiln.Attention
//   %v = Reshape+Transpose(%v_flat)          │ reading the projections as they are
//   %o = kiln.Attention(%q, %k, %v, %mask)   ┘
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/op_table.h"

namespace kiln::graph {

// The operator's pattern, from its entry in graph/op_table.h.
OpPattern op_pattern(const Node& n);

struct FusedGroup {
  std::vector<size_t> nodes;  // indices into Graph::nodes, in order; the group runs where its last node was
  std::vector<int> inputs;    // values the group reads from outside it (constants included), in first use
  std::vector<int> outputs;   // what it produces: the used outputs of its last node
};

struct FuseOptions {
  // A depthwise convolution whose output has at least this many bytes
  // takes, with its epilogue, the pointwise convolution that alone reads
  // that output (a MobileNet block's 3x3 and its projection) and the
  // projection's epilogue (its residual add):
  //
  //   %d = Conv[group=C](%e, %wd)  ┐ one group: the search computes the
  //   %c = Clip(%d)                │ depthwise convolution in the
  //   %p = Conv(%c, %wp)           │ projection's tiles
  //   %y = Add(%p, %skip)          ┘ (search/rules/rules.h, compute_in_tiles)
  //
  // so that its output, as wide as the block's expansion, never reaches
  // memory: a pointwise tile reads it at its own pixels only, so no tile
  // computes a pixel twice. The default is the second-level cache of one
  // core (1 MiB on Zen 4 and 5): a smaller output stays there between two
  // kernels, and the two tuned apart run faster (docs/onnx.md, "The
  // depthwise convolution in the projection's tiles").
  int64_t depthwise_output_bytes = int64_t{1} << 20;
};

// The groups in an order they can run in: by their last node.
std::vector<FusedGroup> fuse_operators(const Graph& g, const FuseOptions& options = {});

// Whether group `gr` only renames the shape of a graph input: reshapes,
// and layout conversions with blocks of one channel (an image's 3
// channels, NCHW and NCHW1c being the same bytes). Such a group is no
// task and no call: a compiled model reads the input where it lies, as
// its value (graph/compiled_model.h), where a kernel would copy it on
// every run (0.009-0.03 ms of mobilenet_v2's 1.5-2.4 on 2 Zen 5 cores).
// Not when the group writes a graph output, which must be the caller's
// buffer.
bool is_input_view(const Graph& g, const FusedGroup& gr);

// The groups as text, one per line: "%out = Conv+BatchNormalization+Relu(%x, %w, ...)".
std::string groups_str(const Graph& g, const std::vector<FusedGroup>& groups);

}  // namespace kiln::graph
