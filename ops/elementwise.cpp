#include "ops/elementwise.h"

#include "ops/common.h"

namespace kiln::ops {

namespace {

te::Tensor binary(const std::string& op, const te::Tensor& A, const te::Tensor& B,
                  Expr (*fn)(Expr, Expr)) {
  require_rank(op, A, 2);
  require_rank(op, B, 2);
  require_same_dtype(op, A, B);
  require_same_extent(op, A, 0, B, 0);
  require_same_extent(op, A, 1, B, 1);
  return te::compute(A.shape(), [&](Var i, Var j) { return fn(A(i, j), B(i, j)); }, op);
}

}  // namespace

te::Tensor add(const te::Tensor& A, const te::Tensor& B) { return binary("add", A, B, &kiln::add); }

te::Tensor mul(const te::Tensor& A, const te::Tensor& B) { return binary("mul", A, B, &kiln::mul); }

te::Tensor relu(const te::Tensor& A) {
  require_rank("relu", A, 2);
  return te::compute(A.shape(), [&](Var i, Var j) { return max(A(i, j), make_zero(A.dtype())); }, "relu");
}

}  // namespace kiln::ops
