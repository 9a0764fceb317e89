#include "ops/layer_norm.h"

#include "ops/common.h"

namespace kiln::ops {

te::Tensor layer_norm(const te::Tensor& X, const te::Tensor& gamma, const te::Tensor& beta, double eps) {
  return layer_norm_parts(X, gamma, beta, eps).out;
}

LayerNormParts layer_norm_parts(const te::Tensor& X, const te::Tensor& gamma, const te::Tensor& beta, double eps) {
  const std::string op = "layer_norm";
  require_rank(op, X, 2);
  require_rank(op, gamma, 1);
  require_rank(op, beta, 1);
  require_same_dtype(op, X, gamma);
  require_same_dtype(op, X, beta);
  require_same_extent(op, X, 1, gamma, 0);
  require_same_extent(op, X, 1, beta, 0);
  DataType t = X.dtype();
  if (!t.is_float()) KILN_USER_ERROR() << op << ": " << X.name() << " is " << t.str() << ", expected a floating-point type";
  Expr M = X.shape()[0], N = X.shape()[1];
  Expr n = cast(t, N);

  IterVar k1 = te::reduce_axis(Range(i32(0), N), "k");
  te::Tensor total = te::compute({M}, [&](Var i) { return te::sum(X(i, k1), {k1}); }, "ln_sum");
  te::Tensor mean = te::compute({M}, [&](Var i) { return total(i) / n; }, "ln_mean");
  IterVar k2 = te::reduce_axis(Range(i32(0), N), "k");
  te::Tensor var = te::compute(
      {M},
      [&](Var i) {
        Expr d = X(i, k2) - mean(i);
        return te::sum(d * d, {k2});
      },
      "ln_var");
  te::Tensor rstd = te::compute(
      {M}, [&](Var i) { return call(Intrinsic::rsqrt, {var(i) / n + make_const(t, eps)}); }, "ln_rstd");
  te::Tensor out = te::compute(
      {M, N}, [&](Var i, Var j) { return (X(i, j) - mean(i)) * rstd(i) * gamma(j) + beta(j); }, op);
  return {out, mean, rstd};
}

}  // namespace kiln::ops
