// DFT: the discrete Fourier transform along one axis, as a reduction.
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
  Shape out = shape;
  out[s.axis] = s.bins;
  out.back() = 2;
  IterVar j = te::reduce_axis(Range(i32(0), i32(std::min(s.length, shape[s.axis]))), "n");
  const te::Tensor sum = te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        const DataType i64 = DataType::Int64();
        const Expr turns = floormod(cast(i64, i[s.axis]) * cast(i64, j.var()), make_const(i64, static_cast<double>(s.length)));
        const Expr theta = cast(t, turns) * fc(2 * M_PI / static_cast<double>(s.length));
        const Expr c = call(Intrinsic::cos, {theta}), sn = call(Intrinsic::sin, {theta}) * fc(inverse ? 1 : -1);
        std::vector<Expr> at(i.begin(), i.end());
        at[s.axis] = j.var();
        at.back() = i32(0);
        const Expr re = cast(t, x(at));
        at.back() = i32(1);
        const Expr im = complex ? cast(t, x(at)) : fc(0);
        Expr v = select(eq(i.back(), i32(0)), re * c - im * sn, re * sn + im * c);
        if (inverse) v = v * fc(1.0 / static_cast<double>(s.length));
        return te::sum(v, {j});
      },
      "dft_sum");
  if (x.dtype() == t) return sum;
  return ops::map(sum, [&](Expr v) { return cast(x.dtype(), v); }, "dft");
}

}  // namespace

std::vector<OpDef> spectral_ops() {
  return {
      {"DFT", "the discrete Fourier transform along axis (inverse, onesided, a constant dft_length), O(N²)",
       OpPattern::kReduction, dft_rule, one_output(dft), 1},
  };
}

}  // namespace kiln::graph::operators
