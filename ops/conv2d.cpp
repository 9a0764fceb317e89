#include "ops/conv2d.h"

#include "ops/common.h"
#include "ops/pad.h"
#include "ops/window.h"

namespace kiln::ops {

namespace {

// The extents both layouts share, checked.
struct ConvShape {
  int64_t N, C, H, W, K, R, S, P, Q;
};

// `widened`: data and kernel may differ in type (each is widened to the
// accumulator's before the product).
ConvShape conv_shape(const std::string& op, const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg,
                     bool channels_last, bool widened = false) {
  require_rank(op, data, 4);
  require_rank(op, kernel, 4);
  if (!widened) require_same_dtype(op, data, kernel);
  ConvShape s{};
  s.N = const_extent(op, data, 0);
  s.C = const_extent(op, data, channels_last ? 3 : 1);
  s.H = const_extent(op, data, channels_last ? 1 : 2);
  s.W = const_extent(op, data, channels_last ? 2 : 3);
  s.K = const_extent(op, kernel, channels_last ? 3 : 0);
  int64_t kernel_c = const_extent(op, kernel, channels_last ? 2 : 1);
  s.R = const_extent(op, kernel, channels_last ? 0 : 2);
  s.S = const_extent(op, kernel, channels_last ? 1 : 3);
  if (cfg.groups < 1) KILN_USER_ERROR() << op << ": groups " << cfg.groups << " must be positive";
  if (s.C % cfg.groups != 0 || s.K % cfg.groups != 0)
    KILN_USER_ERROR() << op << ": groups " << cfg.groups << " must divide both input channels " << s.C
                      << " and output channels " << s.K;
  if (kernel_c != s.C / cfg.groups)
    KILN_USER_ERROR() << op << ": kernel " << kernel.name() << " has " << kernel_c
                      << " input channels, expected C/groups = " << s.C / cfg.groups;
  s.P = window_output_extent(op, "height", s.H, {s.R, cfg.stride, cfg.pad, cfg.dilation});
  s.Q = window_output_extent(op, "width", s.W, {s.S, cfg.stride, cfg.pad, cfg.dilation});
  return s;
}

// Input channel rc of output channel k's group.
Expr input_channel(const Var& k, const Var& rc, const ConvShape& s, int64_t groups) {
  if (groups == 1) return rc;
  return floordiv(k, i32(s.K / groups)) * i32(s.C / groups) + rc;
}

}  // namespace

te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg, DataType acc) {
  ConvShape s = conv_shape("conv2d_nchw", data, kernel, cfg, false, !acc.is_void());
  te::Tensor padded = pad(data, {0, 0, cfg.pad, cfg.pad}, {0, 0, cfg.pad, cfg.pad}, make_zero(data.dtype()));
  IterVar rc = te::reduce_axis(Range(i32(0), i32(s.C / cfg.groups)), "rc");
  IterVar rr = te::reduce_axis(Range(i32(0), i32(s.R)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(s.S)), "s");
  return te::compute(
      {i32(s.N), i32(s.K), i32(s.P), i32(s.Q)},
      [&](Var n, Var k, Var p, Var q) {
        Expr h = window_index(p, rr.var(), {s.R, cfg.stride, cfg.pad, cfg.dilation});
        Expr w = window_index(q, rs.var(), {s.S, cfg.stride, cfg.pad, cfg.dilation});
        Expr c = input_channel(k, rc.var(), s, cfg.groups);
        Expr x = padded(n, c, h, w), y = kernel(k, rc, rr, rs);
        if (!acc.is_void()) x = cast(acc, x), y = cast(acc, y);
        return te::sum(x * y, {rc, rr, rs});
      },
      "conv2d_nchw");
}

te::Tensor conv2d_nhwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg) {
  ConvShape s = conv_shape("conv2d_nhwc", data, kernel, cfg, true);
  te::Tensor padded = pad(data, {0, cfg.pad, cfg.pad, 0}, {0, cfg.pad, cfg.pad, 0}, make_zero(data.dtype()));
  IterVar rr = te::reduce_axis(Range(i32(0), i32(s.R)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(s.S)), "s");
  IterVar rc = te::reduce_axis(Range(i32(0), i32(s.C / cfg.groups)), "rc");
  return te::compute(
      {i32(s.N), i32(s.P), i32(s.Q), i32(s.K)},
      [&](Var n, Var p, Var q, Var k) {
        Expr h = window_index(p, rr.var(), {s.R, cfg.stride, cfg.pad, cfg.dilation});
        Expr w = window_index(q, rs.var(), {s.S, cfg.stride, cfg.pad, cfg.dilation});
        Expr c = input_channel(k, rc.var(), s, cfg.groups);
        return te::sum(padded(n, h, w, c) * kernel(rr, rs, rc, k), {rr, rs, rc});
      },
      "conv2d_nhwc");
}

}  // namespace kiln::ops
