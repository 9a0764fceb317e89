// Resize (and Upsample, its older form): each output position mapped back
// to a coordinate in the input, per axis, and the input read there by the
// nearest element or interpolated (linear, cubic) from its neighbours.
// GridSample reads the input the same ways at coordinates a grid gives.
//
// Every axis is resized independently, so an output element is a sum over
// the product of each axis's neighbours (1 for nearest, 2 for linear, 4
// for cubic) of their weights' product times the input there. An axis whose
// extent stays and whose coordinate maps to itself takes one neighbour of
// weight 1: a 4-D image resize is 4 or 16 loads, not 2^4 or 4^4.
#include <cmath>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

struct ResizeSpec {
  std::string mode;        // nearest, linear, cubic
  std::string transform;   // coordinate_transformation_mode
  std::string nearest;     // nearest_mode
  std::vector<double> scales;  // output / input, per axis
  Shape out;
  std::vector<double> roi;  // tf_crop_and_resize: starts then ends, per axis
};

// The scales or sizes: Upsample's scales input (its attribute before
// opset 9), Resize's scales (input 1 at opset 10, input 2 since) or sizes
// (input 3), all constant.
ResizeSpec resize_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  const size_t rank = x.shape.size();
  ResizeSpec r;
  r.mode = n.attr_string("mode", "nearest");
  if (r.mode == "bilinear" || r.mode == "trilinear") r.mode = "linear";  // Upsample-7's names
  if (r.mode != "nearest" && r.mode != "linear" && r.mode != "cubic")
    KILN_USER_ERROR() << n.describe() << ": unknown mode '" << r.mode << "'";
  const bool legacy = n.op == "Upsample" || g.opset < 11;  // asymmetric coordinates, floor for nearest
  r.transform = legacy ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  r.nearest = legacy ? "floor" : n.attr_string("nearest_mode", "round_prefer_floor");
  auto constant_floats = [&](size_t i, const char* what) {
    const Value& v = required_input(g, n, i);
    if (!v.is_constant())
      KILN_UNSUPPORTED() << n.describe() << ": its " << what << " (input '" << v.name
                        << "') must be a constant: kiln compiles graphs of static shapes";
    std::vector<double> out;
    for (int64_t k = 0; k < v.numel(); ++k) out.push_back(v.data->get(k));
    return out;
  };
  const bool opset10 = n.op == "Resize" && g.opset < 11;
  const size_t scales_input = n.op == "Upsample" || opset10 ? 1 : 2;
  if (n.op == "Upsample" && n.has_attr("scales")) r.scales = n.attr_floats("scales", {});
  else if (g.input(n, scales_input) && g.input(n, scales_input)->numel() > 0)
    r.scales = constant_floats(scales_input, "scales");
  if (!opset10 && n.op == "Resize" && g.input(n, 3) && g.input(n, 3)->numel() > 0) {
    if (!r.scales.empty()) KILN_USER_ERROR() << n.describe() << ": both scales and sizes";
    const Shape sizes = constant_ints(g, n, 3, "sizes");
    if (sizes.size() != rank) KILN_USER_ERROR() << n.describe() << ": " << sizes.size() << " sizes for rank " << rank;
    r.out = sizes;
    for (size_t a = 0; a < rank; ++a) {
      if (sizes[a] < 1) KILN_USER_ERROR() << n.describe() << ": a size of " << sizes[a];
      r.scales.push_back(static_cast<double>(sizes[a]) / static_cast<double>(x.shape[a]));
    }
  } else {
    if (r.scales.size() != rank) KILN_USER_ERROR() << n.describe() << ": " << r.scales.size() << " scales for rank " << rank;
    for (size_t a = 0; a < rank; ++a) {
      const double e = std::floor(static_cast<double>(x.shape[a]) * r.scales[a]);
      if (!(r.scales[a] > 0) || !(e >= 1 && e <= double(kMaxElements)))
        KILN_USER_ERROR() << n.describe() << ": scale " << r.scales[a] << " along axis " << a;
      r.out.push_back(static_cast<int64_t>(e));
    }
  }
  if (r.transform == "tf_crop_and_resize") {
    r.roi = constant_floats(1, "roi");
    if (r.roi.size() != 2 * rank) KILN_USER_ERROR() << n.describe() << ": roi of " << r.roi.size() << " values";
  }
  return r;
}

void resize_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (x.dtype.is_bool()) KILN_UNSUPPORTED() << n.describe() << ": a resize of bool";
  set_output(g, n, 0, x.dtype, resize_spec(g, n).out);
}

// One neighbour along an axis: the index read (clamped into the axis) and
// its weight.
struct Tap {
  Expr index, weight;
};

// Keys' cubic kernel of coefficient A at a distance d in [0, 2), in type f.
Expr cubic_weight(Expr d, double A, DataType f) {
  auto fc = [&](double v) { return make_const(f, v); };
  const Expr near = ((fc(A + 2) * d - fc(A + 3)) * d * d) + fc(1);
  const Expr far = ((fc(A) * d - fc(5 * A)) * d + fc(8 * A)) * d - fc(4 * A);
  return select(lt(d, fc(1)), near, far);
}

te::Tensor resize(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const ResizeSpec r = resize_spec(g, n);
  const size_t rank = shape.size();
  const DataType f = x.dtype() == DataType::Float(64) ? DataType::Float(64) : DataType::Float32();
  auto fc = [&](double v) { return make_const(f, v); };
  const double a_coeff = n.attr_float("cubic_coeff_a", -0.75);
  const bool exclude_outside = n.attr_int("exclude_outside", 0) != 0;
  const double extrapolation = n.attr_float("extrapolation_value", 0.0);
  const bool crop = r.transform == "tf_crop_and_resize";

  // The coordinate in the input of output position o along axis a.
  auto coordinate = [&](size_t a, Expr o) -> Expr {
    const Expr of = cast(f, o);
    // The resized length as ONNX writes the formulas: input times scale,
    // not floored (the output's extent where sizes were given).
    const double s = r.scales[a], in_e = static_cast<double>(shape[a]), out_e = in_e * s;
    if (r.transform == "half_pixel") return (of + fc(0.5)) / fc(s) - fc(0.5);
    if (r.transform == "pytorch_half_pixel") return out_e > 1 ? (of + fc(0.5)) / fc(s) - fc(0.5) : fc(0);
    if (r.transform == "align_corners") return out_e > 1 ? of * fc((in_e - 1) / (out_e - 1)) : fc(0);
    if (r.transform == "asymmetric") return of / fc(s);
    if (r.transform == "tf_half_pixel_for_nn") return (of + fc(0.5)) / fc(s);
    if (crop) {
      const double start = r.roi[a], end = r.roi[a + rank];
      if (out_e > 1) return fc(start * (in_e - 1)) + of * fc((end - start) * (in_e - 1) / (out_e - 1));
      return fc(0.5 * (start + end) * (in_e - 1));
    }
    KILN_USER_ERROR() << n.describe() << ": unknown coordinate_transformation_mode '" << r.transform << "'";
    return {};
  };
  auto clamp_index = [&](Expr i, int64_t extent) { return min(max(i, i32(0)), i32(extent - 1)); };
  auto identity_axis = [&](size_t a) { return shape[a] == r.out[a] && r.transform != "tf_half_pixel_for_nn" && !crop; };

  auto taps_of = [&](size_t a, const Var& o) {
    std::vector<Tap> taps;
    if (identity_axis(a)) return std::vector<Tap>{{o, fc(1)}};
    const Expr c = coordinate(a, o);
    if (r.mode == "nearest") {
      Expr i;
      if (r.nearest == "floor") i = call(Intrinsic::floor, {c});
      else if (r.nearest == "ceil") i = call(Intrinsic::ceil, {c});
      else if (r.nearest == "round_prefer_ceil") i = call(Intrinsic::floor, {c + fc(0.5)});
      else if (r.nearest == "round_prefer_floor") i = call(Intrinsic::ceil, {c - fc(0.5)});
      else KILN_USER_ERROR() << n.describe() << ": unknown nearest_mode '" << r.nearest << "'";
      return std::vector<Tap>{{clamp_index(cast(DataType::Int32(), i), shape[a]), fc(1)}};
    }
    const Expr base = call(Intrinsic::floor, {c});
    const Expr t = c - base;
    const Expr b = cast(DataType::Int32(), base);
    if (r.mode == "linear") {
      // A coordinate outside the axis reads its edge (the weights then sum
      // to the edge element).
      return std::vector<Tap>{{clamp_index(b, shape[a]), fc(1) - t}, {clamp_index(b + i32(1), shape[a]), t}};
    }
    // Cubic: Keys' kernel of coefficient A over the 4 neighbours; with
    // exclude_outside those outside the axis weigh 0, the rest rescaled.
    auto w = [&](Expr d) { return cubic_weight(d, a_coeff, f); };
    std::vector<Expr> ws = {w(t + fc(1)), w(t), w(fc(1) - t), w(fc(2) - t)};
    if (exclude_outside) {
      Expr total = fc(0);
      for (int k = 0; k < 4; ++k) {
        const Expr at = b + i32(k - 1);
        ws[k] = select(logical_and(ge(at, i32(0)), lt(at, i32(shape[a]))), ws[k], fc(0));
        total = total + ws[k];
      }
      for (Expr& wk : ws) wk = wk / total;
    }
    for (int k = 0; k < 4; ++k) taps.push_back({clamp_index(b + i32(k - 1), shape[a]), ws[k]});
    return taps;
  };

  return te::compute(
      i32s(r.out),
      [&](const std::vector<Var>& o) {
        std::vector<std::vector<Tap>> axes;
        for (size_t a = 0; a < rank; ++a) axes.push_back(taps_of(a, o[a]));
        // The sum over every combination of one tap per axis.
        Expr total;
        std::vector<size_t> pick(rank, 0);
        for (;;) {
          std::vector<Expr> idx;
          Expr weight;
          for (size_t a = 0; a < rank; ++a) {
            const Tap& tap = axes[a][pick[a]];
            idx.push_back(tap.index);
            if (!(r.mode == "nearest" || identity_axis(a))) weight = weight.defined() ? weight * tap.weight : tap.weight;
          }
          const Expr v = weight.defined() ? cast(f, x(idx)) * weight : cast(f, x(idx));
          total = total.defined() ? total + v : v;
          size_t a = rank;
          while (a > 0 && ++pick[a - 1] == axes[a - 1].size()) pick[--a] = 0;
          if (a == 0) break;
        }
        if (crop) {
          // Outside the image: extrapolation_value.
          Expr inside = make_const(DataType::Bool(), 1);
          for (size_t a = 0; a < rank; ++a) {
            const Expr c = coordinate(a, o[a]);
            inside = logical_and(inside, logical_and(ge(c, fc(0)), le(c, fc(static_cast<double>(shape[a] - 1)))));
          }
          total = select(inside, total, fc(extrapolation));
        }
        if (x.dtype().is_float()) return cast(x.dtype(), total);
        return cast(x.dtype(), call(Intrinsic::round, {total}));  // integers round to the nearest
      },
      "resize");
}

void grid_sample_rule(const Node& n, Graph& g) {
  const Value &x = required_input(g, n, 0), &grid = required_input(g, n, 1);
  require_float(n, x);
  require_float(n, grid);
  require_rank(n, x, 4);
  if (grid.shape.size() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2)
    KILN_USER_ERROR() << n.describe() << ": grid of shape " << shape_str(grid.shape) << ", not [" << x.shape[0]
                      << ", H_out, W_out, 2]";
  const std::string mode = n.attr_string("mode", "bilinear"), padding = n.attr_string("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    KILN_USER_ERROR() << n.describe() << ": mode '" << mode << "'; it is bilinear, nearest or bicubic";
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    KILN_USER_ERROR() << n.describe() << ": padding_mode '" << padding << "'; it is zeros, border or reflection";
  set_output(g, n, 0, x.dtype, {x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]});
}

// GridSample (opset 16), as PyTorch's grid_sample that it follows: the
// grid's (x, y) in [-1, 1] made pixel coordinates (align_corners: -1 and 1
// are the corner pixels' centres; else their outer edges), then border
// padding clamps them into the image and reflection reflects them at its
// edges; bilinear and nearest read the padded coordinate, bicubic pads
// each of its 16 taps instead. A tap outside the image reads 0.
te::Tensor grid_sample(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor &x = in.at(0), &grid = in.at(1);
  const Shape& shape = required_input(g, n, 0).shape;
  const std::string mode = n.attr_string("mode", "bilinear"), padding = n.attr_string("padding_mode", "zeros");
  const bool align = n.attr_int("align_corners", 0) != 0;
  const DataType f = x.dtype() == DataType::Float(64) ? DataType::Float(64) : DataType::Float32();
  auto fc = [&](double v) { return make_const(f, v); };
  auto unnormalize = [&](Expr v, int64_t size) {
    const double s = static_cast<double>(size);
    return align ? (v + fc(1)) * fc((s - 1) / 2) : ((v + fc(1)) * fc(s) - fc(1)) * fc(0.5);
  };
  auto clip = [&](Expr v, int64_t size) { return min(max(v, fc(0)), fc(static_cast<double>(size - 1))); };
  // Reflected at the edges (the corner centres with align_corners, else
  // the outer edges), as often as it takes, then clipped.
  auto reflect = [&](Expr v, int64_t size) {
    const double low = align ? 0 : -0.5, span = static_cast<double>(align ? size - 1 : size);
    if (span <= 0) return fc(0);
    const Expr d = call(Intrinsic::abs, {v - fc(low)});
    const Expr flips = call(Intrinsic::floor, {d / fc(span)});
    const Expr extra = d - flips * fc(span);
    const Expr even = eq(flips - fc(2) * call(Intrinsic::floor, {flips * fc(0.5)}), fc(0));
    return clip(select(even, extra + fc(low), fc(span) - extra + fc(low)), size);
  };
  auto padded = [&](Expr v, int64_t size) {
    if (padding == "border") return clip(v, size);
    if (padding == "reflection") return reflect(v, size);
    return v;
  };
  const int64_t H = shape[2], W = shape[3];
  auto i32c = [](Expr v) { return cast(DataType::Int32(), v); };
  // The input at integer pixel (yi, xi), 0 outside the image.
  auto pixel = [&](Expr b, Expr c, Expr yi, Expr xi) {
    const Expr inside = logical_and(logical_and(ge(xi, i32(0)), lt(xi, i32(W))), logical_and(ge(yi, i32(0)), lt(yi, i32(H))));
    const Expr v = cast(f, x(b, c, min(max(yi, i32(0)), i32(H - 1)), min(max(xi, i32(0)), i32(W - 1))));
    return select(inside, v, fc(0));
  };
  return te::compute(
      i32s(out_shape(g, n)),
      [&](Var b, Var c, Var oy, Var ox) {
        const Expr gx = cast(f, grid(b, oy, ox, i32(0))), gy = cast(f, grid(b, oy, ox, i32(1)));
        Expr total;
        if (mode == "bicubic") {
          const Expr ix = unnormalize(gx, W), iy = unnormalize(gy, H);
          const Expr x0 = call(Intrinsic::floor, {ix}), y0 = call(Intrinsic::floor, {iy});
          const Expr tx = ix - x0, ty = iy - y0;
          auto weights = [&](Expr t) {
            return std::vector<Expr>{cubic_weight(t + fc(1), -0.75, f), cubic_weight(t, -0.75, f),
                                     cubic_weight(fc(1) - t, -0.75, f), cubic_weight(fc(2) - t, -0.75, f)};
          };
          const std::vector<Expr> wx = weights(tx), wy = weights(ty);
          for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) {
              const Expr px = i32c(padded(x0 + fc(k - 1), W)), py = i32c(padded(y0 + fc(j - 1), H));
              const Expr v = pixel(b, c, py, px) * wy[j] * wx[k];
              total = total.defined() ? total + v : v;
            }
        } else {
          const Expr ix = padded(unnormalize(gx, W), W), iy = padded(unnormalize(gy, H), H);
          if (mode == "nearest") {
            total = pixel(b, c, i32c(call(Intrinsic::round, {iy})), i32c(call(Intrinsic::round, {ix})));
          } else {
            const Expr x0 = call(Intrinsic::floor, {ix}), y0 = call(Intrinsic::floor, {iy});
            const Expr tx = ix - x0, ty = iy - y0;
            const Expr xi = i32c(x0), yi = i32c(y0);
            total = pixel(b, c, yi, xi) * (fc(1) - ty) * (fc(1) - tx) + pixel(b, c, yi, xi + i32(1)) * (fc(1) - ty) * tx +
                    pixel(b, c, yi + i32(1), xi) * ty * (fc(1) - tx) + pixel(b, c, yi + i32(1), xi + i32(1)) * ty * tx;
          }
        }
        return cast(x.dtype(), total);
      },
      "grid_sample");
}

}  // namespace

std::vector<OpDef> resize_ops() {
  return {
      {"Resize", "nearest, linear or cubic, by constant scales or sizes; every coordinate transformation mode",
       OpPattern::kInjective, resize_rule, one_output(resize), 1},
      {"Upsample", "Resize with asymmetric coordinates (deprecated since opset 10)", OpPattern::kInjective, resize_rule,
       one_output(resize), 1},
      {"GridSample", "the input read at a grid's coordinates: bilinear, nearest or bicubic; zeros, border or reflection "
                     "padding; align_corners",
       OpPattern::kInjective, grid_sample_rule, one_output(grid_sample)},
  };
}

}  // namespace kiln::graph::operators
