// Where each element of a buffer lives: strides in elements.
//
// Parameters are dense row-major, as the caller's memory is. Intermediate
// buffers honour storage_align: the stride of dimension align_axis is padded
// to the next value congruent to align_offset modulo align_factor. Padding
// changes only addresses, never which logical element an index names, and
// every index is bounds-checked per dimension, so padding can hide no bug.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::interp {

// Fills strides for `shape` and returns the number of elements to allocate.
// align_factor 0 means dense.
int64_t compute_layout(const std::vector<int64_t>& shape, int64_t align_axis, int64_t align_factor,
                       int64_t align_offset, std::vector<int64_t>& strides);

}  // namespace kiln::interp
