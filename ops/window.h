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

// floor((in + 2*pad - dilation*(kernel-1) - 1) / stride) + 1. Throws
// kiln::Error, naming `op` and `axis` ("height", "width"), when a parameter
// is out of range, when pad is not smaller than the dilated kernel (some
// output would then read only padding), or when no window fits.
int64_t window_output_extent(const std::string& op, const std::string& axis, int64_t in, const Window& w);

// The input position output position `out` reads at kernel offset `offset`:
// out*stride + offset*dilation, written without multiplications by one.
Expr window_index(const Expr& out, const Expr& offset, const Window& w);

}  // namespace kiln::ops
