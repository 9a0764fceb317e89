// Layer normalisation over the last axis of a matrix.
//
// The variance is the mean of squared deviations from the mean (two passes
// over the row), not E[x^2] - E[x]^2, which loses every significant digit
// when the mean is large against the spread.
#pragma once

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[i, j] = (X[i, j] - mean_i) / sqrt(var_i + eps) * gamma[j] + beta[j]
// X: [M, N], gamma, beta: [N], floating point. Stages: "ln_sum" [M],
// "ln_mean" [M], "ln_var" [M] (sum of squared deviations), "ln_rstd" [M]
// (1 / sqrt(var + eps)), "layer_norm" [M, N].
te::Tensor layer_norm(const te::Tensor& X, const te::Tensor& gamma, const te::Tensor& beta, double eps = 1e-5);

// The same, with its per-row statistics, which ONNX's LayerNormalization
// also returns: the result, "ln_mean" [M] and "ln_rstd" [M].
struct LayerNormParts {
  te::Tensor out, mean, rstd;
};
LayerNormParts layer_norm_parts(const te::Tensor& X, const te::Tensor& gamma, const te::Tensor& beta,
                                double eps = 1e-5);

}  // namespace kiln::ops
