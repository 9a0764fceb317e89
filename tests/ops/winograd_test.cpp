// Winograd's convolution (ops/winograd.h) against the direct one: weights
// transformed by winograd_transform_weights, the op run on the reference
// interpreter, the result compared with a plain loop over the untransformed
// weights, on shapes whose output is no whole number of tiles.
#include <gtest/gtest.h>

#include <cmath>

#include "op_harness.h"
#include "ops/op_table.h"
#include "ops/winograd.h"

namespace kiln {
namespace {

using ops::param;

// Every output element of the op, for data and direct weights g filled from
// the harness's generator (blocked: g[K/kb, C/cb, 3, 3, cb, kb]), beside the
// direct convolution's.
struct Outputs {
  std::vector<double> got, want;
};

Outputs run(const std::string& text) {
  const ops::Workload w = ops::parse_workload(text);
  const int64_t N = param(w, "N"), C = param(w, "C"), H = param(w, "H"), W = param(w, "W"), K = param(w, "K");
  const int64_t pad = param(w, "pad"), cb = param(w, "cb"), kb = param(w, "kb"), m = param(w, "m");
  const int64_t P = H + 2 * pad - 2, Q = W + 2 * pad - 2;
  PrimFunc f = ops::build_workload(w);
  std::vector<test::Array> args;
  for (const Buffer& b : f.params()) args.emplace_back(b);
  test::fill(args[0], 3);
  // The direct weights, then their transform into the op's weight argument.
  std::vector<float> g(static_cast<size_t>(K * C * 9));
  uint32_t s = 12345;
  for (float& x : g) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int>(s >> 21) - 1024) / 1024.0f;
  }
  const std::vector<float> u = ops::winograd_transform_weights(g.data(), K, C, cb, kb, m);
  EXPECT_EQ(u.size(), args[1].size());
  for (size_t i = 0; i < u.size(); ++i) args[1].set(i, u[i]);
  for (size_t i = 0; i < args[2].size(); ++i) args[2].set(i, 77);  // every element must be written
  std::vector<HostBuffer> hosts;
  for (test::Array& a : args) hosts.push_back(a.host());
  interpret(f, hosts);

  Outputs out{args[2].values(), std::vector<double>(args[2].size())};
  const std::vector<double> data = args[0].values();
  const int64_t CO = C / cb, KO = K / kb;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q) {
          double acc = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t t = 0; t < 3; ++t) {
                const int64_t h = p + r - pad, x = q + t - pad;
                if (h < 0 || h >= H || x < 0 || x >= W) continue;
                acc += data[static_cast<size_t>((((n * CO + c / cb) * H + h) * W + x) * cb + c % cb)] *
                       g[static_cast<size_t>(((((k / kb) * CO + c / cb) * 3 + r) * 3 + t) * cb * kb +
                                             (c % cb) * kb + k % kb)];
              }
          out.want[static_cast<size_t>((((n * KO + k / kb) * P + p) * Q + q) * kb + k % kb)] = acc;
        }
  return out;
}

// The largest |got - want| / max(|want|, 1).
double max_error(const Outputs& o) {
  double worst = 0;
  for (size_t i = 0; i < o.got.size(); ++i)
    worst = std::max(worst, std::abs(o.got[i] - o.want[i]) / std::max(std::abs(o.want[i]), 1.0));
  return worst;
}

const char* kShapes[] = {
    "N=1,C=8,H=6,W=6,K=8,pad=1,cb=4,kb=4",    // 6×6 output: whole tiles of 2, one hanging tile of 4
    "N=1,C=4,H=7,W=5,K=8,pad=0,cb=2,kb=8",    // 5×3 output, no padding
    "N=2,C=16,H=9,W=9,K=4,pad=1,cb=16,kb=4",  // batch 2, odd 9×9
    "N=1,C=3,H=3,W=4,K=2,pad=2,cb=1,kb=2",    // padding wider than the kernel's reach
};

TEST(Winograd, F2MatchesTheDirectConvolution) {
  for (const char* s : kShapes) {
    SCOPED_TRACE(s);
    EXPECT_LE(max_error(run(std::string("conv2d_winograd_nchwc:") + s + ",m=2")), 1e-5);
  }
}

// F(4,3) rounds more (its transforms multiply by up to 8 and divide by 24):
// 2e-5 on the 16 channels of the third shape.
TEST(Winograd, F4MatchesTheDirectConvolution) {
  for (const char* s : kShapes) {
    SCOPED_TRACE(s);
    EXPECT_LE(max_error(run(std::string("conv2d_winograd_nchwc:") + s + ",m=4")), 1e-4);
  }
}

TEST(Winograd, WrongWeightsDiffer) {
  // The comparison above can fail: an output 1% off is caught.
  Outputs o = run("conv2d_winograd_nchwc:N=1,C=8,H=6,W=6,K=8,pad=1,cb=4,kb=4,m=2");
  for (double& x : o.want) x *= 1.01;
  EXPECT_GT(max_error(o), 1e-3);
}

TEST(Winograd, TakesTwoAndFourOnly) {
  EXPECT_THROW(ops::winograd_matrices(3), Error);
  EXPECT_THROW(ops::parse_workload("conv2d_winograd_nchwc:N=1,C=8,H=6,W=6,K=8,pad=1,cb=4,kb=4,m=3"), Error);
  EXPECT_THROW(ops::parse_workload("conv2d_winograd_nchwc:N=1,C=6,H=6,W=6,K=8,pad=1,cb=4,kb=4"), Error);
}

}  // namespace
}  // namespace kiln
