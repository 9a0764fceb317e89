// Where each element of a buffer lives: strides in elements.
//
// Row-major, and storage_align pads the stride of dimension align_axis to
// the next value congruent to align_offset modulo align_factor. One rule for
// lowering (flatten_buffers) and the reference interpreter, so that the two
// agree on every address. Padding only grows a stride, so no two elements
// share an address; it changes only addresses, never which logical element
// an index names. Parameters are dense, as the caller's memory is.
#pragma once

#include <cstdint>
#include <vector>

#include "core/expr.h"

namespace kiln {

// The product of `b`'s dimensions when each is a constant, else -1: for a
// lowered (flat) buffer, the elements its allocation or parameter holds.
int64_t constant_numel(const Buffer& b);

// Fills strides for `shape` and returns the number of elements to allocate.
// align_factor 0 means dense.
int64_t compute_layout(const std::vector<int64_t>& shape, int64_t align_axis, int64_t align_factor,
                       int64_t align_offset, std::vector<int64_t>& strides);

}  // namespace kiln
