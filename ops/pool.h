// 2-D pooling over NCHW data.
//
// max_pool2d pads with the lowest value of the type, so padding never wins.
// avg_pool2d pads with zero and divides each window's sum by the number of
// input elements inside the window, padding excluded (count_include_pad =
// false in other frameworks): a corner output of a 3x3, pad 1 pooling is the
// mean of 4 values, not their sum divided by 9. The padding rule of
// ops/window.h (pad smaller than the kernel) guarantees that count is never 0.
#pragma once

#include <cstdint>

#include "tir/te/tensor.h"

namespace kiln::ops {

struct Pool2dConfig {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride = 1;
  int64_t pad = 0;
};

// data: [N, C, H, W] -> [N, C, P, Q]. Stages "pad" (absent when pad is 0)
// and "pool_max".
te::Tensor max_pool2d(const te::Tensor& data, const Pool2dConfig& cfg);

// data: [N, C, H, W] (floating point) -> [N, C, P, Q]. Stages "pad" (absent
// when pad is 0), "pool_sum" and "pool_avg".
te::Tensor avg_pool2d(const te::Tensor& data, const Pool2dConfig& cfg);

}  // namespace kiln::ops
