// Elementwise operators over tensors of any rank, with numpy broadcasting:
// what a model's activations, residual adds and normalisation arithmetic
// are. (ops/elementwise.h holds the matrix workloads `add`, `mul`, `relu`
// that `kiln tune-op` names; these are their N-D, broadcasting kin, which
// the graph front end builds.)
//
// Shapes align at the right; an axis of extent 1 in one operand repeats
// along the other's: [8, 1, 5] + [3, 1] -> [8, 3, 5].
#pragma once

#include <functional>
#include <string>

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[i...] = fn(A[i...]); stage `name`.
te::Tensor map(const te::Tensor& A, const std::function<Expr(Expr)>& fn, const std::string& name);

// out[i...] = fn(A[i...], B[i...]) broadcast; stage `name`. Throws kiln::Error
// naming `name` when the shapes do not broadcast.
te::Tensor map2(const te::Tensor& A, const te::Tensor& B, const std::function<Expr(Expr, Expr)>& fn,
                const std::string& name);

// out[i...] = fn({T[i...] for T in inputs}) broadcast across all of them
// (numpy's multidirectional rule); stage `name`. Throws kiln::Error naming
// `name` when the shapes do not broadcast.
te::Tensor map_n(const std::vector<te::Tensor>& inputs, const std::function<Expr(const std::vector<Expr>&)>& fn,
                 const std::string& name);

// A's element at output indices `out` of a broadcast whose result has
// out.size() axes: the indices A's own axes take (0 where A has extent 1).
Expr broadcast_load(const te::Tensor& A, const std::vector<Var>& out);

}  // namespace kiln::ops
