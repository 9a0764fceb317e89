#include "ops/depthwise_conv2d.h"

#include "ops/common.h"
#include "ops/pad.h"
#include "ops/window.h"

namespace kiln::ops {

te::Tensor depthwise_conv2d_nchw(const te::Tensor& data, const te::Tensor& kernel, int64_t stride, int64_t pad_size,
                                 int64_t dilation) {
  const std::string op = "depthwise_conv2d_nchw";
  require_rank(op, data, 4);
  require_rank(op, kernel, 4);
  require_same_dtype(op, data, kernel);
  require_same_extent(op, data, 1, kernel, 0);
  if (const_extent(op, kernel, 1) != 1)
    KILN_USER_ERROR() << op << ": kernel " << kernel.name() << " must have one filter per channel ([C, 1, R, S])";
  int64_t N = const_extent(op, data, 0), C = const_extent(op, data, 1);
  int64_t H = const_extent(op, data, 2), W = const_extent(op, data, 3);
  Window wh{const_extent(op, kernel, 2), stride, pad_size, dilation};
  Window ww{const_extent(op, kernel, 3), stride, pad_size, dilation};
  int64_t P = window_output_extent(op, "height", H, wh);
  int64_t Q = window_output_extent(op, "width", W, ww);

  te::Tensor padded = pad(data, {0, 0, pad_size, pad_size}, {0, 0, pad_size, pad_size}, make_zero(data.dtype()));
  IterVar rr = te::reduce_axis(Range(i32(0), i32(wh.kernel)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(ww.kernel)), "s");
  return te::compute(
      {i32(N), i32(C), i32(P), i32(Q)},
      [&](Var n, Var c, Var p, Var q) {
        Expr h = window_index(p, rr.var(), wh);
        Expr w = window_index(q, rs.var(), ww);
        return te::sum(padded(n, c, h, w) * kernel(c, 0, rr, rs), {rr, rs});
      },
      op);
}

}  // namespace kiln::ops
