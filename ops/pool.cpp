#include "ops/pool.h"

#include "ops/common.h"
#include "ops/pad.h"
#include "ops/window.h"

namespace kiln::ops {

namespace {

struct PoolShape {
  int64_t N, C, H, W, P, Q;
  Window wh, ww;
};

PoolShape pool_shape(const std::string& op, const te::Tensor& data, const Pool2dConfig& cfg) {
  require_rank(op, data, 4);
  PoolShape s{};
  s.N = const_extent(op, data, 0);
  s.C = const_extent(op, data, 1);
  s.H = const_extent(op, data, 2);
  s.W = const_extent(op, data, 3);
  s.wh = Window{cfg.kernel_h, cfg.stride, cfg.pad, 1};
  s.ww = Window{cfg.kernel_w, cfg.stride, cfg.pad, 1};
  s.P = window_output_extent(op, "height", s.H, s.wh);
  s.Q = window_output_extent(op, "width", s.W, s.ww);
  return s;
}

// How many input positions of an axis of extent `in` the window at output
// position `out` covers, padding excluded.
Expr covered(const Var& out, int64_t in, const Window& w) {
  if (w.pad == 0) return i32(w.kernel);
  Expr base = w.stride == 1 ? Expr(out) : out * i32(w.stride);
  return min(base + i32(w.kernel - w.pad), i32(in)) - max(base - i32(w.pad), i32(0));
}

}  // namespace

te::Tensor max_pool2d(const te::Tensor& data, const Pool2dConfig& cfg) {
  PoolShape s = pool_shape("max_pool2d", data, cfg);
  te::Tensor padded = pad(data, {0, 0, cfg.pad, cfg.pad}, {0, 0, cfg.pad, cfg.pad}, min_value(data.dtype()));
  IterVar rr = te::reduce_axis(Range(i32(0), i32(cfg.kernel_h)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(cfg.kernel_w)), "s");
  return te::compute(
      {i32(s.N), i32(s.C), i32(s.P), i32(s.Q)},
      [&](Var n, Var c, Var p, Var q) {
        return te::max_reduce(padded(n, c, window_index(p, rr.var(), s.wh), window_index(q, rs.var(), s.ww)),
                              {rr, rs});
      },
      "pool_max");
}

te::Tensor avg_pool2d(const te::Tensor& data, const Pool2dConfig& cfg) {
  PoolShape s = pool_shape("avg_pool2d", data, cfg);
  if (!data.dtype().is_float())
    KILN_USER_ERROR() << "avg_pool2d: " << data.name() << " is " << data.dtype().str()
                      << ", expected a floating-point type";
  te::Tensor padded = pad(data, {0, 0, cfg.pad, cfg.pad}, {0, 0, cfg.pad, cfg.pad}, make_zero(data.dtype()));
  IterVar rr = te::reduce_axis(Range(i32(0), i32(cfg.kernel_h)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(cfg.kernel_w)), "s");
  std::vector<Expr> shape{i32(s.N), i32(s.C), i32(s.P), i32(s.Q)};
  te::Tensor total = te::compute(
      shape,
      [&](Var n, Var c, Var p, Var q) {
        return te::sum(padded(n, c, window_index(p, rr.var(), s.wh), window_index(q, rs.var(), s.ww)), {rr, rs});
      },
      "pool_sum");
  return te::compute(
      shape,
      [&](Var n, Var c, Var p, Var q) {
        Expr count = covered(p, s.H, s.wh) * covered(q, s.W, s.ww);
        return total(n, c, p, q) / cast(data.dtype(), count);
      },
      "pool_avg");
}

}  // namespace kiln::ops
