// Depthwise 2-D convolution (NCHW): each channel convolved with its own
// R x S filter, as in mobile networks. A grouped convolution with groups = C,
// written as its own operator because its reduction has no channel axis,
// which changes what tiling rules can do with it.
#pragma once

#include <cstdint>

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[n, c, p, q] = sum_{r, s} pad[n, c, p*stride + r*dilation, q*stride + s*dilation] * kernel[c, 0, r, s]
// data: [N, C, H, W], kernel: [C, 1, R, S] -> [N, C, P, Q]; stages "pad"
// (absent when pad is 0) and "depthwise_conv2d_nchw".
te::Tensor depthwise_conv2d_nchw(const te::Tensor& data, const te::Tensor& kernel, int64_t stride, int64_t pad,
                                 int64_t dilation = 1);

}  // namespace kiln::ops
