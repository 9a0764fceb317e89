#include "ops/common.h"

namespace kiln::ops {

int64_t const_extent(const std::string& op, const te::Tensor& t, int d) {
  const int64_t* c = as_const_int(t.shape()[d]);
  if (!c) KILN_USER_ERROR() << op << ": dimension " << d << " of " << t.name() << " must be a constant";
  return *c;
}

void require_rank(const std::string& op, const te::Tensor& t, int rank) {
  if (!t.defined()) KILN_USER_ERROR() << op << ": missing input tensor";
  if (t.ndim() != rank)
    KILN_USER_ERROR() << op << ": " << t.name() << " has " << t.ndim() << " dimensions, expected " << rank;
}

void require_same_dtype(const std::string& op, const te::Tensor& a, const te::Tensor& b) {
  if (a.dtype() != b.dtype())
    KILN_USER_ERROR() << op << ": " << a.name() << " is " << a.dtype().str() << " but " << b.name() << " is "
                      << b.dtype().str();
}

void require_same_extent(const std::string& op, const te::Tensor& a, int d_a, const te::Tensor& b, int d_b) {
  const int64_t* x = as_const_int(a.shape()[d_a]);
  const int64_t* y = as_const_int(b.shape()[d_b]);
  if (x && y && *x != *y)
    KILN_USER_ERROR() << op << ": dimension " << d_a << " of " << a.name() << " is " << *x << " but dimension " << d_b
                      << " of " << b.name() << " is " << *y;
}

}  // namespace kiln::ops
