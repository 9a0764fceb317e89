// 2-D convolutions in the two common layouts, with stride, zero padding,
// dilation and groups.
//
// Two stages: "pad" (absent when pad is 0; see ops/pad.h) and the reduction
// over input channels of the group and the kernel window. With groups = g,
// output channel k reads input channels [(k / (K/g)) * (C/g), ... + C/g).
// Accumulation is in the inputs' type.
#pragma once

#include <cstdint>

#include "tir/te/tensor.h"

namespace kiln::ops {

struct Conv2dConfig {
  int64_t stride = 1;
  int64_t pad = 0;  // on every side of height and width
  int64_t dilation = 1;
  int64_t groups = 1;
};

// out[n, k, p, q] = sum_{c, r, s} pad[n, c', p*stride + r*dilation, q*stride + s*dilation] * kernel[k, c, r, s]
// data: [N, C, H, W], kernel: [K, C/groups, R, S] -> [N, K, P, Q]; stage "conv2d_nchw".
// With `acc` (not void), data and kernel are each widened to it before
// the product (uint8 data, int8 weights, int32 sums).
te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg,
                       DataType acc = DataType());

// The same in channels-last layout: data: [N, H, W, C], kernel: [R, S, C/groups, K]
// -> [N, P, Q, K]; stage "conv2d_nhwc".
te::Tensor conv2d_nhwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg);

}  // namespace kiln::ops
