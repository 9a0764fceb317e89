#include "ops/pad.h"

#include "ops/common.h"

namespace kiln::ops {

te::Tensor pad(const te::Tensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after, Expr value,
               const std::string& name) {
  int rank = t.ndim();
  if (static_cast<int>(before.size()) != rank || static_cast<int>(after.size()) != rank)
    KILN_USER_ERROR() << "pad: " << t.name() << " has " << rank << " dimensions but padding is given for "
                      << before.size() << " before and " << after.size() << " after";
  bool any = false;
  for (int d = 0; d < rank; ++d) {
    if (before[d] < 0 || after[d] < 0) KILN_USER_ERROR() << "pad: negative padding of dimension " << d;
    any = any || before[d] > 0 || after[d] > 0;
  }
  if (!any) return t;

  std::vector<Expr> shape;
  std::vector<int64_t> extent(rank, 0);
  for (int d = 0; d < rank; ++d) {
    bool padded = before[d] > 0 || after[d] > 0;
    if (padded) extent[d] = const_extent("pad", t, d);
    shape.push_back(padded ? i32(extent[d] + before[d] + after[d]) : t.shape()[d]);
  }
  Expr fill = cast(t.dtype(), std::move(value));
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        Expr in_bounds;
        std::vector<Expr> index;
        for (int d = 0; d < rank; ++d) {
          if (before[d] == 0 && after[d] == 0) {
            index.push_back(i[d]);
            continue;
          }
          Expr cond;
          if (before[d] > 0) cond = i[d] >= i32(before[d]);
          if (after[d] > 0) {
            Expr upper = i[d] < i32(before[d] + extent[d]);
            cond = cond.defined() ? (cond && upper) : upper;
          }
          in_bounds = in_bounds.defined() ? (in_bounds && cond) : cond;
          Expr shifted = before[d] > 0 ? i[d] - i32(before[d]) : Expr(i[d]);
          if (before[d] > 0) shifted = max(shifted, i32(0));
          if (after[d] > 0) shifted = min(shifted, i32(extent[d] - 1));
          index.push_back(shifted);
        }
        return select(in_bounds, t(index), fill);
      },
      name);
}

}  // namespace kiln::ops
