// Output extents of sliding windows (convolution, pooling), checked once for
// every operator that slides a window over padded input.
#pragma once

#include <cstdint>
#include <string>

#include "core/expr.h"


namespace kiln::ops {

struct Window {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad = 0;
  int64_t dilation = 1;
};

// How many windows fit along an axis of extent `in` padded by pad_begin
// and pad_end: floor((in + pad_begin + pad_end - span) / stride) + 1, with
// span = dilation*(kernel-1) + 1, or ceil instead of floor with ceil_mode
// (ONNX pooling's last partial window); 0 when none fits. Unchecked: the
// ONNX front end checks its attributes, window_output_extent its workloads.
int64_t window_count(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                     int64_t pad_end, bool ceil_mode = false);

// window_count with one pad all round, checked. Throws
// kiln::Error, naming `op` and `axis` ("height", "width"), when a parameter
// is out of range, when pad is not smaller than the dilated kernel (some
// output would then read only padding), or when no window fits.
int64_t window_output_extent(const std::string& op, const std::string& axis, int64_t in, const Window& w);

// The input position output position `out` reads at kernel offset `offset`:
// out*stride + offset*dilation, written without multiplications by one.
Expr window_index(const Expr& out, const Expr& offset, const Window& w);

}  // namespace kiln::ops
