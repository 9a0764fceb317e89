// Tensor expressions: the way operators are written before they are IR.
//
// An operator is a small graph of tensors. A placeholder is an input; a
// compute tensor says what each of its elements is, as an expression of its
// index variables and of other tensors' elements:
//
//   te::Tensor A = te::placeholder({M, K}, DataType::Float32(), "A");
//   te::Tensor B = te::placeholder({K, N}, DataType::Float32(), "B");
//   IterVar k = te::reduce_axis(Range(0, K), "k");
//   te::Tensor C = te::compute({M, N}, [&](Var i, Var j) {
//     return te::sum(A(i, k) * B(k, j), {k});
//   }, "C");
//   PrimFunc f = te::create_prim_func({A, B, C}, "matmul");
//
// Writing the definition apart from the schedule is what lets the search
// explore schedules of any operator without per-operator templates: the
// definition fixes only the values, create_prim_func (tir/te/create_prim_func.h)
// gives them a canonical loop nest, and schedules rewrite that.
//
// A tensor remembers the tensors its body indexes (recorded while the body
// function runs), so create_prim_func can find intermediate stages from the
// outputs alone. Index tensors inside the body function: an element
// expression built elsewhere and captured is not recorded, and compute()
// rejects it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "core/expr.h"

namespace kiln::te {

class Tensor;

class TensorNode : public Object {
 public:
  // The storage the tensor's elements live in; its name is the tensor's name.
  Buffer buffer;
  // For a compute tensor: one spatial IterVar per dimension, over [0, extent).
  std::vector<IterVar> axis;
  // For a compute tensor: the element at `axis`, possibly a Reduce at the
  // root. Undefined for a placeholder.
  Expr body;
  // Tensors (te.Tensor nodes) the body indexes, in order of first use. Held
  // as plain references because Tensor is only complete below.
  std::vector<ObjectRef> inputs;
  // For a compute tensor: annotations its block carries (annotate()).
  std::map<std::string, Expr> annotations;
  KILN_NODE(TensorNode, "te.Tensor", buffer, axis, body, inputs, annotations)
};

class Tensor : public ObjectRef {
  KILN_REF(Tensor, ObjectRef, TensorNode)

  const Buffer& buffer() const { return (*this)->buffer; }
  const std::string& name() const { return (*this)->buffer.name(); }
  DataType dtype() const { return (*this)->buffer.dtype(); }
  const std::vector<Expr>& shape() const { return (*this)->buffer.shape(); }
  int ndim() const { return (*this)->buffer.ndim(); }
  bool is_placeholder() const { return !(*this)->body.defined(); }
  const std::vector<IterVar>& axis() const { return (*this)->axis; }
  const Expr& body() const { return (*this)->body; }
  std::vector<Tensor> inputs() const;

  // The element at `indices`: a BufferLoad of the tensor's buffer. Throws
  // kiln::Error when the number of indices is not the tensor's rank.
  Expr operator()(std::vector<Expr> indices) const;

  // A(i, j), where each index is an Expr, a Var, an integer or an IterVar
  // (a reduction axis stands for its variable).
  template <typename... Ts>
    requires(sizeof...(Ts) > 0 &&
             ((std::is_convertible_v<const Ts&, Expr> || std::is_same_v<std::decay_t<Ts>, IterVar>) && ...))
  Expr operator()(const Ts&... indices) const {
    return (*this)(std::vector<Expr>{as_index(indices)...});
  }

 private:
  static Expr as_index(const Expr& e) { return e; }
  static Expr as_index(const IterVar& v) { return v.var(); }
};

// An input of the given shape and element type.
Tensor placeholder(std::vector<Expr> shape, DataType dtype, std::string name);

// A tensor whose element at (i0, i1, ...) is fn({i0, i1, ...}). The body may
// be a reduction (sum, max_reduce, min_reduce) at its root, and nowhere else.
// Its element type is the body's type.
Tensor compute(std::vector<Expr> shape, std::function<Expr(const std::vector<Var>&)> fn, std::string name);
// The same, for bodies written with one parameter per dimension.
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var)> fn, std::string name);
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var)> fn, std::string name);
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var, Var)> fn, std::string name);
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var, Var, Var)> fn, std::string name);
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var, Var, Var, Var)> fn, std::string name);

// Compute tensor `t` with `key` = `value` among the annotations of the
// block create_prim_func makes of it (what the stage says about itself:
// ops/winograd.h's rounding, tir/analysis/check_tolerance.h). Annotate a
// tensor before anything reads it: readers hold the tensor they read.
Tensor annotate(const Tensor& t, std::string key, Expr value);

// A reduction axis over `dom` (an int32 variable).
IterVar reduce_axis(Range dom, std::string name);

// Reductions of `source` over `axis`, for the root of a compute body.
Expr sum(Expr source, std::vector<IterVar> axis);
Expr max_reduce(Expr source, std::vector<IterVar> axis);
Expr min_reduce(Expr source, std::vector<IterVar> axis);

}  // namespace kiln::te
