// Multi-dimensional buffers to one-dimensional ones.
//
// Every buffer (parameters, Allocates) becomes a flat buffer of the product of
// its extents, and every access one index: row-major strides, with the padding
// that storage_align asked for on one axis (the stride of that axis is padded,
// and the outer strides build on it):
//
//   A: (64, 30), axis 0 align 16       A[i, j]     =>  A_flat[i * 32 + j]             (A_flat: 2048)
//   B: (4, 6, 30), axis 1 align 16 + 1 B[i, j, k]  =>  B_flat[i * 198 + j * 33 + k]   (B_flat: 792)
//
// Indices are int32, or int64 for buffers of 2^31 elements or more.
#pragma once

#include "tir/stmt.h"

namespace kiln {

// Expects no blocks (run lower_blocks first).
PrimFunc flatten_buffers(const PrimFunc& f);

// Row-major strides of a buffer, including storage_align padding, and its
// flat size. Shapes must be constant.
std::vector<int64_t> buffer_strides(const Buffer& b);
int64_t buffer_flat_size(const Buffer& b);

}  // namespace kiln
