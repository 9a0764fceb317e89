// What users would pick instead of kiln, measured in the same process on the
// same data: OpenBLAS sgemm and oneDNN (matmul, direct convolution on plain
// NCHW and in its own blocked layouts). Each returns the per-run times in
// milliseconds and writes its output so that the caller can check it
// against kiln's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::bench {

struct ConvShape {
  int64_t N, C, H, W, K, R, S, stride, pad;
  int64_t P() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t Q() const { return (W + 2 * pad - S) / stride + 1; }
};

// C[M,N] = A[M,K] * B[K,N], row-major, float32.
std::vector<double> openblas_sgemm(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                                   int threads, int repeat);
std::vector<double> onednn_matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                                  int threads, int repeat);
// C[M,N] = A[M,K] * B[K,N] in int32, A uint8, B int8, row-major (oneDNN's
// u8s8s32 matmul). With `prepacked`, B is reordered into the layout oneDNN
// picks before the timed runs, as a graph compiler folds a constant
// weight; without, oneDNN takes it as it is, as kiln's kernel does. With
// `b_transposed`, B is stored [N, K] (a dense layer's weights, dense_u8s8s32).
// `impl` gets the implementation oneDNN chose.
std::vector<double> onednn_matmul_u8s8s32(const uint8_t* A, const int8_t* B, int32_t* C, int64_t M, int64_t N,
                                          int64_t K, bool prepacked, bool b_transposed, int threads, int repeat,
                                          std::string* impl);
// out[N,K,P,Q] = conv(in[N,C,H,W], weight[K,C,R,S]), plain nchw/oihw layouts,
// algorithm convolution_direct.
std::vector<double> onednn_conv2d_nchw(const float* in, const float* weight, float* out, const ConvShape& s,
                                       int threads, int repeat);
// The same convolution in the layouts oneDNN picks for itself (blocked,
// e.g. nChw16c): its best case, which kiln's nchw kernels are held against
// to say how far a blocked layout would go. Only the convolution is timed.
std::vector<double> onednn_conv2d_blocked(const float* in, const float* weight, float* out, const ConvShape& s,
                                          int threads, int repeat);

// The convolution on kiln's blocked tensors as they are (ops/blocked.h with
// cb = kb = block, 8 or 16: oneDNN's nChw8c/OIhw8i8o or nChw16c/OIhw16i16o),
// so that kiln's conv2d_nchwc is held against oneDNN on the same layout.
// `impl` gets the implementation oneDNN chose (e.g. "jit:avx512_core").
std::vector<double> onednn_conv2d_nchwc(const float* in, const float* weight, float* out, const ConvShape& s,
                                        int64_t block, int threads, int repeat, std::string* impl);

// The int8 convolution of kiln's blocked tensors (conv2d_nchwc_u8s8s32,
// cb = kb = block: nChw16c or nChw8c data and output, OIhw4i16o4i or
// OIhw2i8o4i weights) in the layouts oneDNN picks for all three (its int8
// kernels take nhwc), reordered untimed; only the convolution is timed.
std::vector<double> onednn_conv2d_nchwc_u8s8s32(const uint8_t* in, const int8_t* weight, int32_t* out,
                                                const ConvShape& s, int64_t block, int threads, int repeat,
                                                std::string* impl);
// The same for kiln's plain tensors (conv2d_nchw_u8s8s32: nchw data and
// output, oihw weights), reordered untimed into oneDNN's own layouts.
std::vector<double> onednn_conv2d_nchw_u8s8s32(const uint8_t* in, const int8_t* weight, int32_t* out,
                                               const ConvShape& s, int threads, int repeat, std::string* impl);

// A grouped convolution on kiln's blocked tensors (grouped_conv2d_nchwc, and
// depthwise_conv2d_nchwc, whose [C/b, R, S, b] weights are the grouped
// layout with groups of one channel): data and output as they are
// (nChw16c or nChw8c), the weights given to oneDNN as plain goihw and
// reordered, untimed, into the layout it picks (Goihw16g for a depthwise
// one), as a graph compiler folds them. s.K must equal s.C.
std::vector<double> onednn_grouped_conv2d_nchwc(const float* in, const float* weight, float* out, const ConvShape& s,
                                                int64_t groups, int64_t block, int threads, int repeat,
                                                std::string* impl);

// Which OpenBLAS kernel runs (OPENBLAS_CORETYPE decides; see bench/run).
const char* openblas_core_name();

}  // namespace kiln::bench
