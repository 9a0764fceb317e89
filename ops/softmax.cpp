#include "ops/softmax.h"

#include "ops/common.h"

namespace kiln::ops {

te::Tensor softmax(const te::Tensor& A) {
  require_rank("softmax", A, 2);
  if (!A.dtype().is_float())
    KILN_USER_ERROR() << "softmax: " << A.name() << " is " << A.dtype().str() << ", expected a floating-point type";
  Expr M = A.shape()[0], N = A.shape()[1];
  IterVar k1 = te::reduce_axis(Range(i32(0), N), "k");
  te::Tensor row_max = te::compute(
      {M}, [&](Var i) { return te::max_reduce(A(i, k1), {k1}); }, "softmax_max");
  te::Tensor e = te::compute(
      {M, N}, [&](Var i, Var j) { return call(Intrinsic::exp, {A(i, j) - row_max(i)}); }, "softmax_exp");
  IterVar k2 = te::reduce_axis(Range(i32(0), N), "k");
  te::Tensor row_sum = te::compute(
      {M}, [&](Var i) { return te::sum(e(i, k2), {k2}); }, "softmax_sum");
  return te::compute(
      {M, N}, [&](Var i, Var j) { return e(i, j) / row_sum(i); }, "softmax");
}

}  // namespace kiln::ops
