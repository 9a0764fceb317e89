// The reduction machinery the operator families share: a reduction over
// any set of a tensor's axes (kept as extent 1 or dropped), the indices
// that relate its output to its input, and LogSoftmax along an axis.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/operators/common.h"

namespace kiln::graph::operators {

// The shape after reducing the axes `reduced` marks (kept as extent 1
// with `keep`).
Shape reduced_shape(const Shape& in, const std::vector<bool>& reduced, bool keep);

// One reduce axis per reduced axis of `in`, in order, named prefix + axis.
std::vector<IterVar> reduce_axes_of(const Shape& in, const std::vector<bool>& reduced, const std::string& prefix);

// The input's indices for output indices `i` of a reduction over `axes`
// (from reduce_axes_of), output axes kept or not as `keep` says.
std::vector<Expr> source_index(const std::vector<Var>& i, const std::vector<IterVar>& axes,
                               const std::vector<bool>& reduced, bool keep);

inline Expr identity(Expr v) { return v; }

// `kind` (sum, max, min, prod) of pre(x) over the reduced axes; stage `name`. No
// reduced axis: pre(x) elementwise.
te::Tensor reduce(const te::Tensor& x, const Shape& in, const std::vector<bool>& reduced, bool keep, ReduceKind kind,
                  const std::function<Expr(Expr)>& pre, const std::string& name);

// The largest element over the reduced axes, and the sum of exp(x - that
// largest), both with the axes kept: what LogSoftmax and ReduceLogSumExp
// build on, so that exp never overflows. Stages prefix_max, prefix_sum.
struct ShiftedExpSum {
  te::Tensor max, sum;
};
ShiftedExpSum shifted_exp_sum(const te::Tensor& x, const Shape& in, const std::vector<bool>& reduced,
                              const std::string& prefix);

// x - log(sum(exp(x))) along `axis` of x (shape `in`), the largest element
// subtracted first so that exp never overflows.
te::Tensor log_softmax_along(const te::Tensor& x, const Shape& in, size_t axis);

}  // namespace kiln::graph::operators
