#include "ops/broadcast.h"

#include <algorithm>

#include "core/error.h"
#include "ops/common.h"

namespace kiln::ops {

Expr broadcast_load(const te::Tensor& A, const std::vector<Var>& out) {
  const size_t rank = static_cast<size_t>(A.ndim()), skip = out.size() - rank;
  std::vector<Expr> idx;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t* e = as_const_int(A.shape()[d]);
    idx.push_back(e && *e == 1 ? i32(0) : Expr(out[d + skip]));
  }
  return A(idx);
}

te::Tensor map(const te::Tensor& A, const std::function<Expr(Expr)>& fn, const std::string& name) {
  return te::compute(
      A.shape(), [&](const std::vector<Var>& i) { return fn(A(std::vector<Expr>(i.begin(), i.end()))); }, name);
}

te::Tensor map2(const te::Tensor& A, const te::Tensor& B, const std::function<Expr(Expr, Expr)>& fn,
                const std::string& name) {
  const size_t rank = static_cast<size_t>(std::max(A.ndim(), B.ndim()));
  std::vector<Expr> shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    auto extent = [&](const te::Tensor& t) -> int64_t {
      const size_t skip = rank - static_cast<size_t>(t.ndim());
      return d < skip ? 1 : const_extent(name, t, static_cast<int>(d - skip));
    };
    const int64_t a = extent(A), b = extent(B);
    if (a != b && a != 1 && b != 1)
      KILN_USER_ERROR() << name << ": " << A.name() << " and " << B.name() << " do not broadcast (axis " << d << ": "
                        << a << " and " << b << ")";
    shape[d] = i32(a == 1 ? b : a);
  }
  return te::compute(
      shape, [&](const std::vector<Var>& i) { return fn(broadcast_load(A, i), broadcast_load(B, i)); }, name);
}

}  // namespace kiln::ops
