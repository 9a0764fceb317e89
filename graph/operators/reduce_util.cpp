#include "graph/operators/reduce_util.h"

#include <algorithm>

#include "ops/broadcast.h"
#include "ops/common.h"

namespace kiln::graph::operators {

using ops::i32;
using ops::i32s;

Shape reduced_shape(const Shape& in, const std::vector<bool>& reduced, bool keep) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) out.push_back(in[d]);
    else if (keep) out.push_back(1);
  }
  return out;
}

std::vector<Expr> source_index(const std::vector<Var>& i, const std::vector<IterVar>& axes,
                               const std::vector<bool>& reduced, bool keep) {
  std::vector<Expr> idx;
  size_t next = 0, r = 0;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) {
      idx.push_back(axes[r++].var());
      if (keep) ++next;
    } else {
      idx.push_back(i[next++]);
    }
  }
  return idx;
}

std::vector<IterVar> reduce_axes_of(const Shape& in, const std::vector<bool>& reduced, const std::string& prefix) {
  std::vector<IterVar> axes;
  for (size_t d = 0; d < in.size(); ++d)
    if (reduced[d]) axes.push_back(te::reduce_axis(Range(i32(0), i32(in[d])), prefix + std::to_string(d)));
  return axes;
}

te::Tensor reduce(const te::Tensor& x, const Shape& in, const std::vector<bool>& reduced, bool keep, ReduceKind kind,
                  const std::function<Expr(Expr)>& pre, const std::string& name) {
  if (std::find(reduced.begin(), reduced.end(), true) == reduced.end()) return ops::map(x, pre, name);  // no axis
  const std::vector<IterVar> axes = reduce_axes_of(in, reduced, "k");
  return te::compute(
      i32s(reduced_shape(in, reduced, keep)),
      [&](const std::vector<Var>& i) {
        return kiln::reduce(kind, pre(x(source_index(i, axes, reduced, keep))), axes);
      },
      name);
}

ShiftedExpSum shifted_exp_sum(const te::Tensor& x, const Shape& in, const std::vector<bool>& reduced,
                              const std::string& prefix) {
  const te::Tensor m = reduce(x, in, reduced, true, ReduceKind::kMax, identity, prefix + "_max");
  const std::vector<IterVar> axes = reduce_axes_of(in, reduced, "k");
  const te::Tensor s = te::compute(
      i32s(reduced_shape(in, reduced, true)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> mi(i.begin(), i.end());
        return te::sum(call(Intrinsic::exp, {x(source_index(i, axes, reduced, true)) - m(mi)}), axes);
      },
      prefix + "_sum");
  return {m, s};
}

te::Tensor log_softmax_along(const te::Tensor& x, const Shape& in, size_t axis) {
  std::vector<bool> reduced(in.size(), false);
  reduced[axis] = true;
  const ShiftedExpSum e = shifted_exp_sum(x, in, reduced, "log_softmax");
  return ops::map_n({x, e.max, e.sum},
                    [](const std::vector<Expr>& v) { return v[0] - v[1] - call(Intrinsic::log, {v[2]}); },
                    "log_softmax");
}

}  // namespace kiln::graph::operators
