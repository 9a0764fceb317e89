// Channels in blocks: the NCHW[x]c layout, and the convolutions that read
// and write it.
//
//   NCHW      x[n, c, h, w]
//   NCHW[b]c  x[n, c / b, h, w, c % b]      (b channels side by side)
//
// A block of b output channels is one vector register wide when b is the
// target's lane count, and it is the innermost, contiguous axis of both the
// output and the weights, so a register tile of a convolution is whole
// vectors of output channels over a few output pixels, with every weight
// load contiguous and every input value a broadcast. oneDNN's and
// onnxruntime's fastest CPU convolutions use this layout; kiln's graph pass
// (graph/layout.h) converts a model's convolutions to it, transforming the
// weights once at compile time, and the tuner schedules these definitions
// like any other.
//
// Weights of conv2d_nchwc: kernel[K / kb, C / cb, R, S, cb, kb], so that
// the kb output channels of one (input channel, tap) are contiguous.
// Depthwise weights: kernel[C / b, R, S, b]. Grouped weights (groups of
// gw input and gw output channels): kernel[K / b, gw / cb, R, S, cb, b],
// cb = min(gw, b), the channels of one group that one block holds.
#pragma once

#include <cstdint>

#include "ops/conv2d.h"
#include "ops/pool.h"
#include "tir/te/tensor.h"

namespace kiln::ops {

// x[N, C, H, W] -> [N, Cp / block, H, W, block]; stage "to_nchwc".
// `padded` (Cp, a multiple of block, at least C; 0: C) pads the channels
// with zeros, so that a value of 440 channels takes blocks of 16 (448)
// instead of 8 (graph/layout.h, channel_blocking).
te::Tensor to_nchwc(const te::Tensor& x, int64_t block, int64_t padded = 0);

// x[N, Cp / b, H, W, b] -> [N, C, H, W], the first `channels` (0: all Cp);
// stage "from_nchwc".
te::Tensor from_nchwc(const te::Tensor& x, int64_t channels = 0);

// out[n, ko, p, q, ki] = sum_{co, r, s, ci} pad[n, co, p*stride + r*dil, q*stride + s*dil, ci]
//                                         * kernel[ko, co, r, s, ci, ki]
// data [N, C/cb, H, W, cb], kernel [K/kb, C/cb, R, S, cb, kb] -> [N, K/kb, P, Q, kb];
// stage "conv2d_nchwc". cfg.groups must be 1.
te::Tensor conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg);

// conv2d_nchwc in integers, for the int8 dot-product instructions
// (docs/tensorize.md): uint8 data, int8 weights, both widened to `acc`
// (int32) before the product. The weights hold four input channels
// together for each output channel, the operand layout of those
// instructions (oneDNN's OIhw4i16o4i for blocks of 16):
//   kernel [K/kb, C/cb, R, S, cb/4, kb, 4]:  kernel[ko, co, r, s, ci / 4, ki, ci % 4]
// data [N, C/cb, H, W, cb] -> [N, K/kb, P, Q, kb]; stage "conv2d_nchwc".
// cb must be a multiple of 4.
te::Tensor conv2d_nchwc_dot4(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg, DataType acc);

// A grouped convolution whose groups are gw channels in and gw out, gw
// dividing the block b or b dividing gw, so that a group's channels lie in
// whole blocks or a block holds whole groups:
//   gw < b:  out[n, ko, p, q, ki] = sum_{r, s, j < gw}
//              pad[n, ko, h, w, (ki / gw) * gw + j] * kernel[ko, 0, r, s, j, ki]
//   gw >= b: out[n, ko, p, q, ki] = sum_{jo < gw / b, r, s, ji < b}
//              pad[n, (ko / (gw / b)) * (gw / b) + jo, h, w, ji] * kernel[ko, jo, r, s, ji, ki]
// data [N, C/b, H, W, b], kernel [K/b, gw/cb, R, S, cb, b] (cb = min(gw, b))
// -> [N, K/b, P, Q, b]; stage "grouped_conv2d_nchwc". cfg.groups is C / gw.
// A RegNet's group width of 8 in blocks of 16 (AVX-512) is the first case;
// on AVX2 (blocks of 8) either.
te::Tensor grouped_conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg);

// Whether groups of gw channels fit blocks of b as grouped_conv2d_nchwc
// takes them: gw divides b or b divides gw.
inline bool group_fits_block(int64_t gw, int64_t b) { return b % gw == 0 || gw % b == 0; }

// out[n, co, p, q, ci] = sum_{r, s} pad[n, co, p*stride + r*dil, q*stride + s*dil, ci] * kernel[co, r, s, ci]
// data [N, C/b, H, W, b], kernel [C/b, R, S, b] -> [N, C/b, P, Q, b];
// stage "depthwise_conv2d_nchwc". cfg.groups is ignored (it is C).
te::Tensor depthwise_conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg);

// max_pool2d (ops/pool.h) over blocked data: [N, C/b, H, W, b] ->
// [N, C/b, P, Q, b]; stages "pad" (absent when pad is 0) and "pool_max".
te::Tensor max_pool2d_nchwc(const te::Tensor& data, const Pool2dConfig& cfg);

}  // namespace kiln::ops
