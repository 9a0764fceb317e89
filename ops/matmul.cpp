#include "ops/matmul.h"

#include "ops/common.h"

namespace kiln::ops {

te::Tensor matmul(const te::Tensor& A, const te::Tensor& B, const std::string& name) {
  require_rank("matmul", A, 2);
  require_rank("matmul", B, 2);
  require_same_dtype("matmul", A, B);
  require_same_extent("matmul", A, 1, B, 0);
  IterVar k = te::reduce_axis(Range(i32(0), A.shape()[1]), "k");
  return te::compute(
      {A.shape()[0], B.shape()[1]}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, name);
}

te::Tensor matmul_widened(const te::Tensor& A, const te::Tensor& B, DataType acc, const std::string& name) {
  require_rank("matmul", A, 2);
  require_rank("matmul", B, 2);
  require_same_extent("matmul", A, 1, B, 0);
  IterVar k = te::reduce_axis(Range(i32(0), A.shape()[1]), "k");
  return te::compute(
      {A.shape()[0], B.shape()[1]},
      [&](Var i, Var j) { return te::sum(cast(acc, A(i, k)) * cast(acc, B(k, j)), {k}); }, name);
}

te::Tensor dense_widened(const te::Tensor& X, const te::Tensor& W, DataType acc, const std::string& name) {
  require_rank("dense", X, 2);
  require_rank("dense", W, 2);
  require_same_extent("dense", X, 1, W, 1);
  IterVar k = te::reduce_axis(Range(i32(0), X.shape()[1]), "k");
  return te::compute(
      {X.shape()[0], W.shape()[0]},
      [&](Var i, Var j) { return te::sum(cast(acc, X(i, k)) * cast(acc, W(j, k)), {k}); }, name);
}

te::Tensor batch_matmul(const te::Tensor& A, const te::Tensor& B, const std::string& name) {
  require_rank("batch_matmul", A, 3);
  require_rank("batch_matmul", B, 3);
  require_same_dtype("batch_matmul", A, B);
  require_same_extent("batch_matmul", A, 0, B, 0);
  require_same_extent("batch_matmul", A, 2, B, 1);
  IterVar k = te::reduce_axis(Range(i32(0), A.shape()[2]), "k");
  return te::compute(
      {A.shape()[0], A.shape()[1], B.shape()[2]},
      [&](Var b, Var i, Var j) { return te::sum(A(b, i, k) * B(b, k, j), {k}); }, name);
}

te::Tensor dense(const te::Tensor& X, const te::Tensor& W, const te::Tensor& bias, Activation act) {
  require_rank("dense", X, 2);
  require_rank("dense", W, 2);
  require_same_dtype("dense", X, W);
  require_same_extent("dense", X, 1, W, 1);
  IterVar k = te::reduce_axis(Range(i32(0), X.shape()[1]), "k");
  std::vector<Expr> shape{X.shape()[0], W.shape()[0]};
  te::Tensor y = te::compute(
      shape, [&](Var i, Var j) { return te::sum(X(i, k) * W(j, k), {k}); }, "dense");
  if (bias.defined()) {
    require_rank("dense", bias, 1);
    require_same_dtype("dense", X, bias);
    require_same_extent("dense", W, 0, bias, 0);
    te::Tensor in = y;
    y = te::compute(shape, [&](Var i, Var j) { return in(i, j) + bias(j); }, "bias_add");
  }
  if (act == Activation::kRelu) {
    te::Tensor in = y;
    y = te::compute(shape, [&](Var i, Var j) { return max(in(i, j), make_zero(in.dtype())); }, "relu");
  }
  return y;
}

}  // namespace kiln::ops
