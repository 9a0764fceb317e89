// Reductions along the last axis. reduce_sum is the plain reduction workload:
// the case that rfactor and cross-thread reduction rules exist for.
#pragma once

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[i] = sum_k A[i, k]; A: [M, N] -> [M]. Accumulates in A's type. Stage "reduce_sum".
te::Tensor reduce_sum(const te::Tensor& A);

}  // namespace kiln::ops
