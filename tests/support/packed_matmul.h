// A matmul scheduled by hand with its weight B packed at the root into
// panels of 16 columns (B_global[j // 16, k, j % 16]) and marked as B's
// pack (tir/transform/split_prepack.h): what the prepacking tests split,
// run and measure.
#pragma once

#include "tir/stmt.h"

namespace kiln::testing {

// `matmul` (ops/workload.h's, N a multiple of 16) with j tiled by 16 and B
// packed as above.
PrimFunc packed_matmul(const PrimFunc& matmul);

}  // namespace kiln::testing
