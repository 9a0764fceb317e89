// Winograd's minimal filtering for 3×3 stride-1 convolutions on blocked
// channels (NCHW[x]c), F(m×m, 3×3) with m = 2 or 4 (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016).
//
// A direct 3×3 convolution spends 9 multiply-adds per output pixel, input
// channel and output channel. Winograd cuts the output into m×m tiles, each
// read from an α×α input tile (α = m + 2), and computes a tile as
//
//   Y = Aᵀ [ U ⊙ V ] A,   U = G g Gᵀ (the weights),  V = Bᵀ d B (the input)
//
// where ⊙ is elementwise over the α×α positions and, across channels, a
// matrix product per position: α² products of (tiles × C) by (C × K). So
// the multiply-adds per output fall from 9 to α²/m²: 4 for F(2,3), 2.25
// for F(4,3). The transforms cost a few additions per element and touch
// memory once; the product is where the time goes, and the tuner schedules
// it like any other (search/rules: multi-level tiling). U depends on the
// weights alone, so a model transforms its constant weights once, at
// compile time (winograd_transform_weights), as onnxruntime and oneDNN do.
//
// Rounding: F(2,3)'s coefficients are 0, ±1 and ±½, exact in float; F(4,3)
// multiplies by up to 8 and divides by 24, and its outputs differ from the
// direct convolution's by a few units in the 4th significant digit on
// random data (docs/winograd.md measures both). So F(4,3)'s output stage
// declares the error a correct program may show (kCheckToleranceAnn,
// tir/stmt.h), which the checks of candidates and tests then allow.
//
// The stages, each a compute of its own so that a schedule places them:
//   "pad"                   the input padded to whole tiles (absent when
//                           nothing is padded)
//   "winograd_input_rows"   T = d B, per input tile     [N, C/cb, TH, TW, α, α, cb]
//   "winograd_input"        V = Bᵀ T                     [α, α, N, C/cb, TH, TW, cb]
//   "winograd_product"      M = Σ_c V · U, per position  [α, α, N, K/kb, TH, TW, kb]
//   "winograd_output_rows"  Z = M A                      [N, K/kb, TH, TW, α, m, kb]
//   "winograd_output"       Y = Aᵀ Z, per output pixel   [N, K/kb, P, Q, kb]
// where TH = ceil(P / m) and TW = ceil(Q / m): the last tiles may hang past
// the output, and only the pixels inside it are written. Each transform is
// written out as sums of the nonzero coefficients, selected by the tile
// position, so that an unrolled tile position makes them constants: the
// transform stages carry kUnrollAxesAnn (tir/stmt.h) on those axes, and
// postprocessing unrolls them innermost (search/postproc.h).
#pragma once

#include <cstdint>
#include <vector>

#include "tir/te/tensor.h"

namespace kiln::ops {

// What F(4,3)'s output stage declares as its check tolerance: 7× the
// largest difference measured between two correct programs.
inline constexpr double kF4CheckTolerance = 5e-3;

// Bᵀ (α×α), G (α×3) and Aᵀ (m×α), row-major.
struct WinogradMatrices {
  int64_t m = 0, alpha = 0;
  std::vector<double> bt, g, at;
};

// F(m×m, 3×3) for m = 2 or 4; a user error otherwise.
const WinogradMatrices& winograd_matrices(int64_t m);

// The weights of conv2d_nchwc (ops/blocked.h), kernel[K/kb, C/cb, 3, 3, cb, kb],
// transformed: U[α, α, K/kb, C/cb, cb, kb] = G g Gᵀ per (output channel, input
// channel), computed in double and rounded once.
std::vector<float> winograd_transform_weights(const float* kernel, int64_t K, int64_t C, int64_t cb, int64_t kb,
                                              int64_t m);

// out[n, ko, p, q, ki] = the 3×3 stride-1 convolution of data [N, C/cb, H, W, cb],
// padded by `pad` on every side, with the weights whose transform is u
// [α, α, K/kb, C/cb, cb, kb] -> [N, K/kb, P, Q, kb]; the stages above.
te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& u, int64_t pad, int64_t m);

}  // namespace kiln::ops
