// What the shape rules (graph/op_table.cpp) and the passes share: reading
// a node's inputs, constant integer inputs, axes and broadcasting, each
// failing with an error that names the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln::graph {

// The node's input `i`; throws naming the node when it is omitted.
const Value& required_input(const Graph& g, const Node& n, size_t i);

// The most elements one value may have: far beyond any model kiln
// compiles, and small enough that counts and byte sizes never overflow.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// The most elements a constant that a rule makes at import may have
// (ConstantOfShape, Range: 1 GiB of float32). Weights may be larger; a
// constant this large made from a few bytes of model is a mistake.
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 28;

// The element count of `shape`. Throws naming `what` when an extent is
// negative or the count is more than kMaxElements.
int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what);

// Sets output `i`'s dtype and shape (a missing output is left alone);
// throws naming the node when the shape is negative or too large.
void set_output(Graph& g, const Node& n, size_t i, DataType dtype, std::vector<int64_t> shape);

// Output `i` as a constant holding `data` (its dtype and shape too).
void set_constant_output(Graph& g, const Node& n, size_t i, NDArray data);

// The contents of input `i`, an integer tensor that must be constant
// (Reshape's shape, Slice's starts): a static graph needs it at compile
// time. Throws naming the node and the input otherwise.
std::vector<int64_t> constant_ints(const Graph& g, const Node& n, size_t i, const char* what);

// The integers of a constant integer tensor.
std::vector<int64_t> ints_of(const NDArray& a);

// `axis` in [-rank, rank) made non-negative; throws naming the node.
int64_t normalized_axis(const Node& n, int64_t axis, int64_t rank);

// The same for an axis that indexes the input's shape (Concat's, Gather's,
// Squeeze's, Slice's, a reduction's): a scalar has none, which
// normalized_axis lets through as axis 0.
int64_t shape_axis(const Node& n, int64_t axis, int64_t rank);

// The numpy (ONNX multidirectional) broadcast of two shapes; throws naming
// the node when they do not broadcast.
std::vector<int64_t> broadcast_shapes(const Node& n, const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// The begin and end pads of each spatial axis of a Conv or pooling node
// whose input has spatial extents `in`, from `pads` or auto_pad
// (SAME_UPPER, SAME_LOWER, VALID): {b1, b2, ..., e1, e2, ...}.
std::vector<int64_t> window_pads(const Node& n, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations);

// Whether Conv node `n` (NCHW, its weight [K, C / group, R, S]) is
// depthwise: a group per input channel, one output channel each.
bool is_depthwise_conv(const Graph& g, const Node& n);

}  // namespace kiln::graph
