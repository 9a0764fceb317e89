// Softmax over the last axis of a matrix, in the numerically stable form:
// subtracting each row's maximum before exp keeps exp from overflowing, and
// leaves the result unchanged.
#pragma once

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[i, j] = exp(A[i, j] - max_k A[i, k]) / sum_k exp(A[i, k] - max_k' A[i, k'])
// A: [M, N] floating point. Four stages: "softmax_max" [M] (max reduction),
// "softmax_exp" [M, N], "softmax_sum" [M] (sum reduction), "softmax" [M, N].
te::Tensor softmax(const te::Tensor& A);

}  // namespace kiln::ops
