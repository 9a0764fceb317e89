// Matrix products: matmul, batch_matmul and dense (a fully connected layer).
//
// Each is one reduction stage over the shared axis; dense adds its bias and
// activation as separate elementwise stages, which schedules inline (the
// usual epilogue fusion) or keep. Accumulation happens in the inputs' type:
// an int8 matmul accumulates in int8 and wraps. Callers wanting a wider
// accumulator cast the inputs first.
#pragma once

#include <string>

#include "tir/te/tensor.h"

namespace kiln::ops {

enum class Activation { kNone, kRelu };

// C[i, j] = sum_k A[i, k] * B[k, j];  A: [M, K], B: [K, N].
te::Tensor matmul(const te::Tensor& A, const te::Tensor& B, const std::string& name = "C");

// C[i, j] = sum_k acc(A[i, k]) * acc(B[k, j]): each input widened to the
// accumulator's type `acc` before the product (uint8 A, int8 B, int32 sums:
// what the CPUs' int8 dot-product instructions compute).
te::Tensor matmul_widened(const te::Tensor& A, const te::Tensor& B, DataType acc, const std::string& name = "C");

// Y[i, j] = sum_k acc(X[i, k]) * acc(W[j, k]): dense (below) without bias
// or activation, each input widened to `acc` before the product, as
// matmul_widened (uint8 X, int8 W, int32 sums).
te::Tensor dense_widened(const te::Tensor& X, const te::Tensor& W, DataType acc, const std::string& name = "dense");

// C[b, i, j] = sum_k A[b, i, k] * B[b, k, j];  A: [B, M, K], B: [B, K, N].
te::Tensor batch_matmul(const te::Tensor& A, const te::Tensor& B, const std::string& name = "C");

// Y[i, j] = act(sum_k X[i, k] * W[j, k] + bias[j]);  X: [M, K], W: [N, K],
// bias: [N] or undefined. Stages: "dense", then "bias_add" with a bias, then
// "relu" with that activation; the last one is the result.
te::Tensor dense(const te::Tensor& X, const te::Tensor& W, const te::Tensor& bias = te::Tensor(),
                 Activation act = Activation::kNone);

}  // namespace kiln::ops
