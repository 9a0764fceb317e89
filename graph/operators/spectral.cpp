// DFT, the discrete Fourier transform along one axis, and STFT, the DFT of
// a signal's windowed frames, as reductions.
//
// Each output frequency k is the sum over the signal's n elements of
// x[n] · e^(∓2πi·kn/N): O(N²) per transformed line, the definition rather
// than an FFT. Right for the short transforms of the models that hold one
// (a few hundred points); the angle is taken from kn mod N so that it
// stays exact for every k. The sums run in float64 whatever the input's
// type: a float32 sum of a few hundred terms that cancel (a constant
// signal's other frequencies) leaves 1e-5 of rounding where the answer is
// 0.
#include <cmath>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/broadcast.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

// Output component `part` (0 real, 1 imaginary) of the term
// (re + i·im)·e^(∓2πi·kn/N) (- forward, + inverse), in float64, with kn
// taken mod N.
Expr twiddled(Expr part, Expr re, Expr im, Expr k, Expr n, int64_t N, bool inverse) {
  const DataType f64 = DataType::Float(64), i64 = DataType::Int64();
  const Expr turns = floormod(cast(i64, k) * cast(i64, n), make_const(i64, static_cast<double>(N)));
  const Expr theta = cast(f64, turns) * make_const(f64, 2 * M_PI / static_cast<double>(N));
  const Expr c = call(Intrinsic::cos, {theta}), sn = call(Intrinsic::sin, {theta}) * make_const(f64, inverse ? 1 : -1);
  return select(eq(part, i32(0)), re * c - im * sn, re * sn + im * c);
}

struct DftSpec {
  size_t axis;
  int64_t length;  // N: dft_length, or the axis's extent
  int64_t bins;    // output frequencies: N, or N / 2 + 1 when onesided
};

DftSpec dft_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank < 3 || (x.shape.back() != 1 && x.shape.back() != 2))
    KILN_USER_ERROR() << n.describe() << ": input of shape " << shape_str(x.shape)
                      << "; it is [batch, signal..., 1 or 2] (real, or real and imaginary)";
  DftSpec s;
  const int64_t axis = n.attr_int("axis", 1);
  if (axis < 1 || axis >= rank - 1)
    KILN_USER_ERROR() << n.describe() << ": axis " << axis << "; it is a signal axis, 1 to " << rank - 2;
  s.axis = static_cast<size_t>(axis);
  s.length = x.shape[s.axis];
  if (g.input(n, 1)) {
    const Shape l = constant_ints(g, n, 1, "dft_length");
    if (l.size() != 1 || l[0] < 1) KILN_USER_ERROR() << n.describe() << ": dft_length must be one positive value";
    s.length = l[0];
  }
  const bool onesided = n.attr_int("onesided", 0) != 0;
  if (onesided && n.attr_int("inverse", 0) != 0) not_yet(n, "an inverse onesided DFT");
  if (onesided && x.shape.back() == 2) KILN_USER_ERROR() << n.describe() << ": onesided takes a real input";
  s.bins = onesided ? s.length / 2 + 1 : s.length;
  return s;
}

void dft_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  const DftSpec s = dft_spec(g, n);
  Shape out = x.shape;
  out[s.axis] = s.bins;
  out.back() = 2;
  set_output(g, n, 0, x.dtype, out);
}

// (xr + i·xi)(cos θ + i·sign·sin θ), θ = 2π·kn/N, sign -1 forward, +1
// inverse (then over N). The input is read up to N (zeros past its end).
te::Tensor dft(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const DftSpec s = dft_spec(g, n);
  const bool inverse = n.attr_int("inverse", 0) != 0, complex = shape.back() == 2;
  const DataType t = DataType::Float(64);
  auto fc = [&](double v) { return make_const(t, v); };
  IterVar j = te::reduce_axis(Range(i32(0), i32(std::min(s.length, shape[s.axis]))), "n");
  const te::Tensor sum = te::compute(
      i32s(out_shape(g, n)),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        at[s.axis] = j.var();
        at.back() = i32(0);
        const Expr re = cast(t, x(at));
        at.back() = i32(1);
        const Expr im = complex ? cast(t, x(at)) : fc(0);
        Expr v = twiddled(i.back(), re, im, i[s.axis], j.var(), s.length, inverse);
        if (inverse) v = v * fc(1.0 / static_cast<double>(s.length));
        return te::sum(v, {j});
      },
      "dft_sum");
  if (x.dtype() == t) return sum;
  return ops::map(sum, [&](Expr v) { return cast(x.dtype(), v); }, "dft");
}

struct StftSpec {
  int64_t step, length, frames, bins;
};

// frame_step (input 1) and frame_length (input 3, or the window's length)
// are constants; the window (input 2) is data.
StftSpec stft_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  if (x.shape.size() != 3 || (x.shape[2] != 1 && x.shape[2] != 2))
    KILN_USER_ERROR() << n.describe() << ": signal of shape " << shape_str(x.shape) << "; it is [batch, length, 1 or 2]";
  StftSpec s;
  const Shape step = constant_ints(g, n, 1, "frame_step");
  if (step.size() != 1 || step[0] < 1) KILN_USER_ERROR() << n.describe() << ": frame_step must be one positive value";
  s.step = step[0];
  const Value* window = g.input(n, 2);
  if (window && window->shape.size() != 1) KILN_USER_ERROR() << n.describe() << ": the window has shape " << shape_str(window->shape);
  s.length = window ? window->shape[0] : 0;
  if (g.input(n, 3)) {
    const Shape l = constant_ints(g, n, 3, "frame_length");
    if (l.size() != 1 || (window && l[0] != s.length))
      KILN_USER_ERROR() << n.describe() << ": frame_length must be one value, the window's length";
    s.length = l[0];
  }
  if (s.length < 1 || s.length > x.shape[1])
    KILN_USER_ERROR() << n.describe() << ": frames of " << s.length << " samples in a signal of " << x.shape[1];
  s.frames = (x.shape[1] - s.length) / s.step + 1;
  const bool onesided = n.attr_int("onesided", 1) != 0;
  if (onesided && x.shape[2] == 2) KILN_USER_ERROR() << n.describe() << ": onesided takes a real signal";
  s.bins = onesided ? s.length / 2 + 1 : s.length;
  return s;
}

void stft_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  require_float(n, x);
  if (const Value* w = g.input(n, 2); w && w->dtype != x.dtype)
    KILN_USER_ERROR() << n.describe() << ": the window is " << w->dtype.str() << ", the signal " << x.dtype.str();
  const StftSpec s = stft_spec(g, n);
  set_output(g, n, 0, x.dtype, {x.shape[0], s.frames, s.bins, 2});
}

// out[b, f, k] = sum_n window[n] · x[b, f·step + n] · e^(-2πi·kn/N).
te::Tensor stft(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const te::Tensor window = in.size() > 2 ? in[2] : te::Tensor();
  const Shape& shape = required_input(g, n, 0).shape;
  const StftSpec s = stft_spec(g, n);
  const DataType f64 = DataType::Float(64);
  IterVar j = te::reduce_axis(Range(i32(0), i32(s.length)), "n");
  const te::Tensor sum = te::compute(
      i32s(out_shape(g, n)),
      [&](Var b, Var f, Var k, Var part) {
        const Expr at = f * i32(s.step) + j.var();
        const Expr w = window.defined() ? cast(f64, window(j.var())) : make_const(f64, 1);
        const Expr re = cast(f64, x(b, at, i32(0))) * w;
        const Expr im = shape[2] == 2 ? cast(f64, x(b, at, i32(1))) * w : make_const(f64, 0);
        return te::sum(twiddled(part, re, im, k, j.var(), s.length, false), {j});
      },
      "stft_sum");
  if (x.dtype() == f64) return sum;
  return ops::map(sum, [&](Expr v) { return cast(x.dtype(), v); }, "stft");
}

}  // namespace

std::vector<OpDef> spectral_ops() {
  return {
      {"DFT", "the discrete Fourier transform along axis (inverse, onesided, a constant dft_length), O(N²)",
       OpPattern::kReduction, dft_rule, one_output(dft), 1},
      {"STFT", "the DFT of the signal's frames (constant frame_step and frame_length), windowed, onesided by default",
       OpPattern::kReduction, stft_rule, one_output(stft), 1, {2}},
  };
}

}  // namespace kiln::graph::operators
