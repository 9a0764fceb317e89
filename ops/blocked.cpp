#include "ops/blocked.h"

#include <algorithm>
#include <functional>

#include "ops/common.h"
#include "ops/pad.h"
#include "ops/window.h"

namespace kiln::ops {

te::Tensor to_nchwc(const te::Tensor& x, int64_t block, int64_t padded) {
  const std::string op = "to_nchwc";
  require_rank(op, x, 4);
  const int64_t N = const_extent(op, x, 0), C = const_extent(op, x, 1);
  const int64_t H = const_extent(op, x, 2), W = const_extent(op, x, 3);
  const int64_t Cp = padded > 0 ? padded : C;
  if (block < 1 || Cp % block != 0 || Cp < C)
    KILN_USER_ERROR() << op << ": block " << block << " must divide the " << Cp << " channels of " << x.name()
                      << (Cp < C ? ", at least its " + std::to_string(C) : std::string());
  return te::compute(
      {i32(N), i32(Cp / block), i32(H), i32(W), i32(block)},
      [&](Var n, Var co, Var h, Var w, Var ci) {
        const Expr c = co * i32(block) + ci;
        if (Cp == C) return x(n, c, h, w);
        return select(c < i32(C), x(n, min(c, i32(C - 1)), h, w), make_zero(x.dtype()));
      },
      op);
}

te::Tensor from_nchwc(const te::Tensor& x, int64_t channels) {
  const std::string op = "from_nchwc";
  require_rank(op, x, 5);
  const int64_t N = const_extent(op, x, 0), CO = const_extent(op, x, 1);
  const int64_t H = const_extent(op, x, 2), W = const_extent(op, x, 3), B = const_extent(op, x, 4);
  const int64_t C = channels > 0 ? channels : CO * B;
  if (C > CO * B)
    KILN_USER_ERROR() << op << ": " << x.name() << " holds " << CO * B << " channels, not " << C;
  return te::compute(
      {i32(N), i32(C), i32(H), i32(W)},
      [&](Var n, Var c, Var h, Var w) { return x(n, floordiv(c, i32(B)), h, w, floormod(c, i32(B))); }, op);
}

namespace {

// out[n, ko, p, q, ki] = sum_{rco, r, s, rci} pad[n, rco, h, w, rci] * weight(ko, rco, r, s, rci, ki)
// over data [N, C/cb, H, W, cb]: the direct convolution both weight
// layouts share, the product in `acc` when it is not void (both factors
// widened first).
using WeightAt = std::function<Expr(const Var& ko, const Var& rco, const Var& r, const Var& s, const Var& rci,
                                    const Var& ki)>;
te::Tensor blocked_direct_conv(const std::string& op, const te::Tensor& data, int64_t KO, int64_t KB, int64_t R,
                               int64_t S, const Conv2dConfig& cfg, DataType acc, const WeightAt& weight) {
  if (cfg.groups != 1) KILN_USER_ERROR() << op << ": groups " << cfg.groups << " is not taken (only 1)";
  const int64_t N = const_extent(op, data, 0), CO = const_extent(op, data, 1);
  const int64_t H = const_extent(op, data, 2), W = const_extent(op, data, 3), CB = const_extent(op, data, 4);
  const Window wh{R, cfg.stride, cfg.pad, cfg.dilation};
  const Window ww{S, cfg.stride, cfg.pad, cfg.dilation};
  const int64_t P = window_output_extent(op, "height", H, wh), Q = window_output_extent(op, "width", W, ww);
  te::Tensor padded =
      pad(data, {0, 0, cfg.pad, cfg.pad, 0}, {0, 0, cfg.pad, cfg.pad, 0}, make_zero(data.dtype()));
  IterVar rco = te::reduce_axis(Range(i32(0), i32(CO)), "rco");
  IterVar rr = te::reduce_axis(Range(i32(0), i32(R)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(S)), "s");
  IterVar rci = te::reduce_axis(Range(i32(0), i32(CB)), "rci");
  return te::compute(
      {i32(N), i32(KO), i32(P), i32(Q), i32(KB)},
      [&](Var n, Var ko, Var p, Var q, Var ki) {
        Expr x = padded(n, rco, window_index(p, rr.var(), wh), window_index(q, rs.var(), ww), rci);
        Expr k = weight(ko, rco.var(), rr.var(), rs.var(), rci.var(), ki);
        if (!acc.is_void()) x = cast(acc, x), k = cast(acc, k);
        return te::sum(x * k, {rco, rr, rs, rci});
      },
      op);
}

}  // namespace

te::Tensor conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg) {
  const std::string op = "conv2d_nchwc";
  require_rank(op, data, 5);
  require_rank(op, kernel, 6);
  require_same_dtype(op, data, kernel);
  require_same_extent(op, data, 1, kernel, 1);
  require_same_extent(op, data, 4, kernel, 4);
  return blocked_direct_conv(op, data, const_extent(op, kernel, 0), const_extent(op, kernel, 5),
                             const_extent(op, kernel, 2), const_extent(op, kernel, 3), cfg, DataType(),
                             [&](const Var& ko, const Var& rco, const Var& r, const Var& s, const Var& rci,
                                 const Var& ki) { return kernel(ko, rco, r, s, rci, ki); });
}

te::Tensor conv2d_nchwc_dot4(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg, DataType acc) {
  const std::string op = "conv2d_nchwc";
  require_rank(op, data, 5);
  require_rank(op, kernel, 7);
  require_same_extent(op, data, 1, kernel, 1);
  const int64_t CB = const_extent(op, data, 4);
  if (CB % 4 != 0 || const_extent(op, kernel, 4) * 4 != CB || const_extent(op, kernel, 6) != 4)
    KILN_USER_ERROR() << op << ": weights of " << CB << " input channels per block must be [..., " << CB / 4
                      << ", kb, 4] (four channels together), with " << CB << " a multiple of 4";
  const Expr four = i32(4);
  return blocked_direct_conv(op, data, const_extent(op, kernel, 0), const_extent(op, kernel, 5),
                             const_extent(op, kernel, 2), const_extent(op, kernel, 3), cfg, acc,
                             [&](const Var& ko, const Var& rco, const Var& r, const Var& s, const Var& rci,
                                 const Var& ki) {
                               return kernel(ko, rco, r, s, floordiv(rci, four), ki, floormod(rci, four));
                             });
}

te::Tensor grouped_conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg) {
  const std::string op = "grouped_conv2d_nchwc";
  require_rank(op, data, 5);
  require_rank(op, kernel, 6);
  require_same_dtype(op, data, kernel);
  require_same_extent(op, data, 4, kernel, 5);
  const int64_t N = const_extent(op, data, 0), CO = const_extent(op, data, 1);
  const int64_t H = const_extent(op, data, 2), W = const_extent(op, data, 3), B = const_extent(op, data, 4);
  const int64_t KO = const_extent(op, kernel, 0), M = const_extent(op, kernel, 1), CB = const_extent(op, kernel, 4);
  const int64_t C = CO * B, gw = M * CB, groups = cfg.groups;
  if (groups < 1 || C % groups != 0 || C / groups != gw || KO * B != C)
    KILN_USER_ERROR() << op << ": " << groups << " groups of " << data.name() << "'s " << C
                      << " channels do not match " << kernel.name() << "'s groups of " << gw << " into " << KO * B;
  if (!group_fits_block(gw, B) || CB != std::min(gw, B))
    KILN_USER_ERROR() << op << ": a group of " << gw << " channels must divide the block of " << B
                      << " or be whole blocks of it";
  const Window wh{const_extent(op, kernel, 2), cfg.stride, cfg.pad, cfg.dilation};
  const Window ww{const_extent(op, kernel, 3), cfg.stride, cfg.pad, cfg.dilation};
  const int64_t P = window_output_extent(op, "height", H, wh), Q = window_output_extent(op, "width", W, ww);
  te::Tensor padded =
      pad(data, {0, 0, cfg.pad, cfg.pad, 0}, {0, 0, cfg.pad, cfg.pad, 0}, make_zero(data.dtype()));
  IterVar rjo = te::reduce_axis(Range(i32(0), i32(M)), "rjo");
  IterVar rr = te::reduce_axis(Range(i32(0), i32(wh.kernel)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(ww.kernel)), "s");
  IterVar rji = te::reduce_axis(Range(i32(0), i32(CB)), "rji");
  return te::compute(
      {i32(N), i32(KO), i32(P), i32(Q), i32(B)},
      [&](Var n, Var ko, Var p, Var q, Var ki) {
        Expr h = window_index(p, rr.var(), wh);
        Expr w = window_index(q, rs.var(), ww);
        if (M == 1) {  // a block holds whole groups
          const Expr lane = CB == B ? Expr(rji.var()) : floordiv(ki, i32(CB)) * i32(CB) + rji.var();
          return te::sum(padded(n, ko, h, w, lane) *
                             kernel(ko, i32(0), rr, rs, rji, ki),
                         {rr, rs, rji});
        }
        return te::sum(padded(n, floordiv(ko, i32(M)) * i32(M) + rjo.var(), h, w, rji) * kernel(ko, rjo, rr, rs, rji, ki),
                       {rjo, rr, rs, rji});
      },
      op);
}

te::Tensor depthwise_conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const Conv2dConfig& cfg) {
  const std::string op = "depthwise_conv2d_nchwc";
  require_rank(op, data, 5);
  require_rank(op, kernel, 4);
  require_same_dtype(op, data, kernel);
  require_same_extent(op, data, 1, kernel, 0);
  require_same_extent(op, data, 4, kernel, 3);
  const int64_t N = const_extent(op, data, 0), CO = const_extent(op, data, 1);
  const int64_t H = const_extent(op, data, 2), W = const_extent(op, data, 3), B = const_extent(op, data, 4);
  const Window wh{const_extent(op, kernel, 1), cfg.stride, cfg.pad, cfg.dilation};
  const Window ww{const_extent(op, kernel, 2), cfg.stride, cfg.pad, cfg.dilation};
  const int64_t P = window_output_extent(op, "height", H, wh), Q = window_output_extent(op, "width", W, ww);
  te::Tensor padded =
      pad(data, {0, 0, cfg.pad, cfg.pad, 0}, {0, 0, cfg.pad, cfg.pad, 0}, make_zero(data.dtype()));
  IterVar rr = te::reduce_axis(Range(i32(0), i32(wh.kernel)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(ww.kernel)), "s");
  return te::compute(
      {i32(N), i32(CO), i32(P), i32(Q), i32(B)},
      [&](Var n, Var co, Var p, Var q, Var ci) {
        Expr h = window_index(p, rr.var(), wh);
        Expr w = window_index(q, rs.var(), ww);
        return te::sum(padded(n, co, h, w, ci) * kernel(co, rr, rs, ci), {rr, rs});
      },
      op);
}

te::Tensor max_pool2d_nchwc(const te::Tensor& data, const Pool2dConfig& cfg) {
  const std::string op = "max_pool2d_nchwc";
  require_rank(op, data, 5);
  const int64_t N = const_extent(op, data, 0), CO = const_extent(op, data, 1);
  const int64_t H = const_extent(op, data, 2), W = const_extent(op, data, 3), B = const_extent(op, data, 4);
  const Window wh{cfg.kernel_h, cfg.stride, cfg.pad, 1}, ww{cfg.kernel_w, cfg.stride, cfg.pad, 1};
  const int64_t P = window_output_extent(op, "height", H, wh), Q = window_output_extent(op, "width", W, ww);
  te::Tensor padded =
      pad(data, {0, 0, cfg.pad, cfg.pad, 0}, {0, 0, cfg.pad, cfg.pad, 0}, min_value(data.dtype()));
  IterVar rr = te::reduce_axis(Range(i32(0), i32(cfg.kernel_h)), "r");
  IterVar rs = te::reduce_axis(Range(i32(0), i32(cfg.kernel_w)), "s");
  return te::compute(
      {i32(N), i32(CO), i32(P), i32(Q), i32(B)},
      [&](Var n, Var co, Var p, Var q, Var ci) {
        return te::max_reduce(padded(n, co, window_index(p, rr.var(), wh), window_index(q, rs.var(), ww), ci),
                              {rr, rs});
      },
      "pool_max");
}

}  // namespace kiln::ops
