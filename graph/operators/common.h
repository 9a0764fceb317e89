// What the operator families of graph/operators/ share: checks their shape
// rules make of a node's inputs, and the small adapters of their compute
// definitions. Each throws naming the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/op_table.h"
#include "graph/shape_util.h"
#include "graph/unsupported.h"

namespace kiln::graph::operators {

using Shape = std::vector<int64_t>;
using Tensors = std::vector<te::Tensor>;

// The product of s[from, to).
int64_t product(const Shape& s, size_t from = 0, size_t to = SIZE_MAX);

// Refusals of what kiln does not take (UnsupportedError).
void require_float(const Node& n, const Value& v);
void require_rank(const Node& n, const Value& v, size_t rank);
[[noreturn]] void not_yet(const Node& n, const std::string& what);

// The rule of an operator whose output has input 0's dtype and shape.
void same_as_input(const Node& n, Graph& g);

// The indices of a matrix operand's batch axes (all but its last two, as
// numpy.matmul reads them) at output indices `i`, whose first `batch` are
// batch axes: aligned at the right, an axis of extent 1 read at 0.
std::vector<Expr> batch_index(const Shape& operand, const std::vector<Var>& i, size_t batch);

// The shape of the node's output `i`, as its rule set it.
const Shape& out_shape(const Graph& g, const Node& n, size_t i = 0);

// A compute definition of one output, made an OpDef::lower: the node's
// other outputs must be omitted.
using LowerOneFn = std::function<te::Tensor(const Graph& g, const Node& n, const Tensors& inputs)>;
LowerFn one_output(LowerOneFn f);

}  // namespace kiln::graph::operators
