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

te::Tensor map_n(const std::vector<te::Tensor>& inputs, const std::function<Expr(const std::vector<Expr>&)>& fn,
                 const std::string& name) {
  size_t rank = 0;
  for (const te::Tensor& t : inputs) rank = std::max(rank, static_cast<size_t>(t.ndim()));
  std::vector<Expr> shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent = 1;
    for (const te::Tensor& t : inputs) {
      const size_t skip = rank - static_cast<size_t>(t.ndim());
      const int64_t e = d < skip ? 1 : const_extent(name, t, static_cast<int>(d - skip));
      if (e != extent && e != 1 && extent != 1)
        KILN_USER_ERROR() << name << ": " << inputs[0].name() << " and " << t.name() << " do not broadcast (axis " << d
                          << ": " << extent << " and " << e << ")";
      if (e != 1) extent = e;
    }
    shape[d] = i32(extent);
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> values;
        for (const te::Tensor& t : inputs) values.push_back(broadcast_load(t, i));
        return fn(values);
      },
      name);
}

te::Tensor map2(const te::Tensor& A, const te::Tensor& B, const std::function<Expr(Expr, Expr)>& fn,
                const std::string& name) {
  return map_n({A, B}, [&](const std::vector<Expr>& v) { return fn(v[0], v[1]); }, name);
}

}  // namespace kiln::ops
