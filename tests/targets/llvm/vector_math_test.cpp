// exp, sigmoid, erf and tanh of float32 as vector_math.h emits them, over their
// whole range and at their edges, in 16-lane vectors and as scalars,
// against libm in double: the accuracy vector_math.h claims.
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "tests/targets/llvm/kernel_util.h"

namespace kiln {
namespace {

using namespace kiln::test;

// fn(x) for every x, as 16-lane vectors and as scalars: S scalar, V vector.
PrimFunc elementwise(const std::string& name, int64_t n, const std::function<Expr(const Expr&)>& fn) {
  const int lanes = 16;
  const DataType t = DataType::Float32();
  Buffer X = flat("X", t, n), S = flat("S", t, n), V = flat("V", t, n);
  Var i("i"), io("io");
  Stmt body = seq({loop(i, n, st(S, fn(ld(X, i)), i)),
                   loop(io, n / lanes, st(V, fn(ld(X, vec(io * lanes, lanes))), vec(io * lanes, lanes)))});
  return PrimFunc(name, {X, S, V}, body);
}

std::pair<NDArray, NDArray> run_elementwise(const std::string& name, const std::vector<float>& xs,
                                            const std::function<Expr(const Expr&)>& fn) {
  const int lanes = 16;
  const int64_t n = static_cast<int64_t>((xs.size() + lanes - 1) / lanes * lanes);
  const DataType t = DataType::Float32();
  PrimFunc f = elementwise(name, n, fn);
  NDArray x(t, {n}), s(t, {n}), v(t, {n});
  for (int64_t k = 0; k < n; ++k) x.set(k, k < static_cast<int64_t>(xs.size()) ? xs[static_cast<size_t>(k)] : 0.0f);
  run(f, {&x, &s, &v});
  return {std::move(s), std::move(v)};
}

// op(x) for every x, as 16-lane vectors and as scalars.
std::pair<NDArray, NDArray> run_op(Intrinsic op, const std::vector<float>& xs) {
  return run_elementwise(std::string("vm_") + intrinsic_name(op), xs, [op](const Expr& x) { return call(op, {x}); });
}

// The largest error of op over xs, relative to max(|want|, floor).
double worst_error(Intrinsic op, const std::vector<float>& xs, double (*ref)(double), double floor) {
  const auto [s, v] = run_op(op, xs);
  double worst = 0, worst_x = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const double want = ref(xs[k]);
    for (const NDArray* got : {&s, &v}) {
      const double e = std::abs(got->get(static_cast<int64_t>(k)) - want) / std::max(std::abs(want), floor);
      EXPECT_LT(e, 1e-5) << intrinsic_name(op) << "(" << xs[k] << ") = " << got->get(static_cast<int64_t>(k))
                         << ", not " << want;
      if (e > worst) worst_x = xs[k];
      worst = std::max(worst, e);
    }
  }
  std::printf("%s: worst relative error %.3g (at %g) over %zu inputs\n", intrinsic_name(op), worst, worst_x, xs.size());
  return worst;
}

// Errors relative to at least the smallest normal float.
constexpr double kFloor = 1.1754943508222875e-38;

std::vector<float> sweep(double lo, double hi, int n) {
  std::vector<float> xs;
  for (int k = 0; k <= n; ++k) xs.push_back(static_cast<float>(lo + (hi - lo) * k / n));
  return xs;
}

TEST(VectorMath, ExpWithinTwoAndAHalfUlpOverItsRange) {
  EXPECT_LT(worst_error(Intrinsic::exp, sweep(-87.3, 88.7, 20000), [](double x) { return std::exp(x); }, kFloor), 1.5e-7);
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(VectorMath, SigmoidWithinItsBoundOverItsRange) {
  std::vector<float> xs = sweep(-87, 87, 20000);
  for (float tiny : {1e-30f, -1e-8f, 17.0f, -17.0f}) xs.push_back(tiny);
  EXPECT_LT(worst_error(Intrinsic::sigmoid, xs, sigmoid, kFloor), 2.5e-7);
}

// SiLU's product x * sigmoid(x) is emitted as one quotient, x / (1 + exp(-x)):
// no NaN select (a NaN x makes the quotient NaN), as accurate as sigmoid.
TEST(VectorMath, SiLUIsOneQuotientAsAccurateAsSigmoid) {
  auto silu = [](const Expr& x) { return x * call(Intrinsic::sigmoid, {x}); };
  auto sigmoid_of = [](const Expr& x) { return call(Intrinsic::sigmoid, {x}); };
  ASSERT_NE(emit_llvm_ir(elementwise("vm_sigmoid", 16, sigmoid_of), host()).find("fcmp uno"), std::string::npos)
      << "the test's premise: sigmoid alone selects NaN lanes";
  EXPECT_EQ(emit_llvm_ir(elementwise("vm_silu", 16, silu), host()).find("fcmp uno"), std::string::npos);
  std::vector<float> xs = sweep(-87, 87, 20000);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (float x : {1e-30f, -1e-8f, 0.0f, -0.0f, 100.0f, -100.0f, inf, nan}) xs.push_back(x);
  const auto [s, v] = run_elementwise("vm_silu", xs, silu);
  double worst = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const double x = xs[k], want = x * sigmoid(x);
    for (const NDArray* got : {&s, &v}) {
      const double g = got->get(static_cast<int64_t>(k));
      if (std::isnan(want) || std::isinf(want)) {
        EXPECT_TRUE(std::isnan(want) ? std::isnan(g) : g == want) << "silu(" << x << ") = " << g;
        continue;
      }
      if (x < -87) {  // x / (1 + exp(87)), as x * sigmoid(x) with sigmoid held at 1.7e-38 was
        EXPECT_TRUE(g <= 0 && g > -1e-35) << "silu(" << x << ") = " << g;
        continue;
      }
      const double e = std::abs(g - want) / std::max(std::abs(want), kFloor);
      EXPECT_LT(e, 2.5e-7) << "silu(" << x << ") = " << g << ", not " << want;
      worst = std::max(worst, e);
    }
  }
  std::printf("silu: worst relative error %.3g over %zu inputs\n", worst, xs.size());
}

TEST(VectorMath, ErfWithinItsBoundNearZeroAndInTheTails) {
  std::vector<float> xs = sweep(-6, 6, 20000);
  for (float tiny : {1e-30f, 1e-8f, -3e-5f, 0.4999f, 0.5f}) xs.push_back(tiny);
  EXPECT_LT(worst_error(Intrinsic::erf, xs, [](double x) { return std::erf(x); }, kFloor), 4e-7);
}

TEST(VectorMath, TanhWithinItsBoundNearZeroAndInTheTails) {
  std::vector<float> xs = sweep(-20, 20, 20000);
  for (float tiny : {1e-30f, 1e-8f, -3e-5f, 0.2999f, 0.3f, 50.0f, -100.0f}) xs.push_back(tiny);
  EXPECT_LT(worst_error(Intrinsic::tanh, xs, [](double x) { return std::tanh(x); }, kFloor), 4.5e-7);
}

#if defined(__x86_64__)
// A subnormal result costs x86 a microcode assist per instruction (without
// flush-to-zero, which kiln does not set): exp of softmax's masked lanes
// and erf's tails must not form one. The CPU says whether any instruction
// did: MXCSR's sticky underflow flag.
TEST(VectorMath, NoLaneFormsASubnormalOnTheWay) {
  const struct {
    Intrinsic op;
    std::vector<float> xs;
  } cases[] = {{Intrinsic::exp, sweep(-300, -80, 4000)}, {Intrinsic::erf, sweep(-40, 40, 4000)},
               {Intrinsic::tanh, sweep(-100, 100, 4000)}, {Intrinsic::sigmoid, sweep(-300, 300, 4000)}};
  constexpr unsigned kUnderflow = 0x10;
  for (const auto& c : cases) {
    std::vector<float> xs = c.xs;
    xs.push_back(-std::numeric_limits<float>::max());
    _mm_setcsr(_mm_getcsr() & ~kUnderflow);
    const auto [s, v] = run_op(c.op, xs);
    EXPECT_EQ(_mm_getcsr() & kUnderflow, 0u) << intrinsic_name(c.op) << " formed a subnormal";
    for (size_t k = 0; k < xs.size(); ++k) {
      const double g = v.get(static_cast<int64_t>(k));
      EXPECT_TRUE(g == 0 || std::abs(g) >= kFloor) << intrinsic_name(c.op) << "(" << xs[k] << ") = " << g;
    }
  }
}
#endif

TEST(VectorMath, TheEdgesAreLibmsEdges) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {inf, -inf, nan, 0.0f, -0.0f, 100.0f, -100.0f};
  for (Intrinsic op : {Intrinsic::exp, Intrinsic::sigmoid, Intrinsic::erf, Intrinsic::tanh}) {
    const auto [s, v] = run_op(op, xs);
    for (size_t k = 0; k < xs.size(); ++k) {
      const double want = op == Intrinsic::exp       ? std::exp(xs[k])
                          : op == Intrinsic::sigmoid ? sigmoid(xs[k])
                          : op == Intrinsic::erf     ? std::erf(xs[k])
                                                     : std::tanh(xs[k]);
      for (const NDArray* got : {&s, &v}) {
        const double g = got->get(static_cast<int64_t>(k));
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(g)) << intrinsic_name(op) << "(" << xs[k] << ") = " << g;
        else if (std::isinf(want)) EXPECT_EQ(g, want) << intrinsic_name(op) << "(" << xs[k] << ")";
        else EXPECT_NEAR(g, want, 1e-37) << intrinsic_name(op) << "(" << xs[k] << ")";  // exp(-100) is 0 here
      }
    }
  }
}

}  // namespace
}  // namespace kiln
