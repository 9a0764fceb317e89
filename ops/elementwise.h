// Elementwise operators on matrices. Small on their own; they exist as
// workloads because fused into a producer (epilogues) they are where much of
// a model's memory traffic goes, and tuning them alone measures that traffic.
#pragma once

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[i, j] = A[i, j] + B[i, j]; A, B: [M, N] of one type. Stage "add".
te::Tensor add(const te::Tensor& A, const te::Tensor& B);
// out[i, j] = A[i, j] * B[i, j]; stage "mul".
te::Tensor mul(const te::Tensor& A, const te::Tensor& B);
// out[i, j] = max(A[i, j], 0); stage "relu".
te::Tensor relu(const te::Tensor& A);

}  // namespace kiln::ops
