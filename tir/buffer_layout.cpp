#include "tir/buffer_layout.h"

#include <cstddef>

namespace kiln {

int64_t constant_numel(const Buffer& b) {
  int64_t n = 1;
  for (const Expr& e : b.shape()) {
    const int64_t* c = as_const_int(e);
    if (!c) return -1;
    n *= *c;
  }
  return n;
}

int64_t compute_layout(const std::vector<int64_t>& shape, int64_t align_axis, int64_t align_factor,
                       int64_t align_offset, std::vector<int64_t>& strides) {
  const std::size_t nd = shape.size();
  strides.assign(nd, 1);
  if (nd == 0) return 1;
  for (std::size_t d = nd; d-- > 0;) {
    int64_t s = d + 1 < nd ? strides[d + 1] * shape[d + 1] : 1;
    if (static_cast<int64_t>(d) == align_axis && align_factor > 0)
      s += ((align_offset - s) % align_factor + align_factor) % align_factor;
    strides[d] = s;
  }
  return strides[0] * shape[0];
}

}  // namespace kiln
