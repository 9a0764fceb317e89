#include "ops/reduce.h"

#include "ops/common.h"

namespace kiln::ops {

te::Tensor reduce_sum(const te::Tensor& A) {
  require_rank("reduce_sum", A, 2);
  IterVar k = te::reduce_axis(Range(i32(0), A.shape()[1]), "k");
  return te::compute({A.shape()[0]}, [&](Var i) { return te::sum(A(i, k), {k}); }, "reduce_sum");
}

}  // namespace kiln::ops
