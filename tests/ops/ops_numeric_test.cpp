// Every op on the reference interpreter against a straightforward C++ loop,
// on a small shape and on odd ones (prime extents, extent 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "op_harness.h"
#include "ops/op_table.h"

namespace kiln {
namespace {

using ops::param;
using ops::Workload;
using In = std::vector<std::vector<double>>;
using Reference = std::function<std::vector<double>(const Workload&, const In&)>;

// Row-major offset of (i0, i1, ...) in a tensor of the given extents.
size_t at(std::initializer_list<int64_t> idx, std::initializer_list<int64_t> ext) {
  size_t off = 0;
  auto e = ext.begin();
  for (int64_t i : idx) off = off * static_cast<size_t>(*e++) + static_cast<size_t>(i);
  return off;
}

void check(const std::string& text, const Reference& ref, double rel_tol = 1e-5) {
  SCOPED_TRACE(text);
  Workload w = ops::parse_workload(text);
  test::RunResult r = test::run_workload(w);
  test::expect_close(r.output, ref(w, r.inputs), w.dtype, rel_tol);
}

// --- references -------------------------------------------------------------

std::vector<double> ref_matmul(const Workload& w, const In& in) {
  int64_t M = param(w, "M"), N = param(w, "N"), K = param(w, "K");
  std::vector<double> c(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += in[0][at({i, k}, {M, K})] * in[1][at({k, j}, {K, N})];
      c[at({i, j}, {M, N})] = acc;
    }
  return c;
}

std::vector<double> ref_batch_matmul(const Workload& w, const In& in) {
  int64_t B = param(w, "B"), M = param(w, "M"), N = param(w, "N"), K = param(w, "K");
  std::vector<double> c(B * M * N);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += in[0][at({b, i, k}, {B, M, K})] * in[1][at({b, k, j}, {B, K, N})];
        c[at({b, i, j}, {B, M, N})] = acc;
      }
  return c;
}

std::vector<double> ref_dense(const Workload& w, const In& in) {
  int64_t M = param(w, "M"), N = param(w, "N"), K = param(w, "K");
  std::vector<double> y(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += in[0][at({i, k}, {M, K})] * in[1][at({j, k}, {N, K})];
      if (param(w, "bias")) acc += in[2][j];
      if (param(w, "act") == 1) acc = std::max(acc, 0.0);
      y[at({i, j}, {M, N})] = acc;
    }
  return y;
}

struct ConvDims {
  int64_t N, C, H, W, K, R, S, stride, pad, dil, groups, P, Q;
};

ConvDims conv_dims(const Workload& w, bool has_k) {
  ConvDims d{};
  d.N = param(w, "N"), d.C = param(w, "C"), d.H = param(w, "H"), d.W = param(w, "W");
  d.K = has_k ? param(w, "K") : d.C;
  d.R = param(w, "R"), d.S = param(w, "S"), d.stride = param(w, "stride"), d.pad = param(w, "pad");
  d.dil = w.params.count("dilation") ? param(w, "dilation") : 1;
  d.groups = w.params.count("groups") ? param(w, "groups") : 1;
  d.P = (d.H + 2 * d.pad - d.dil * (d.R - 1) - 1) / d.stride + 1;
  d.Q = (d.W + 2 * d.pad - d.dil * (d.S - 1) - 1) / d.stride + 1;
  return d;
}

// Calls fn(h, w) for the in-bounds input positions of output (p, q)'s window.
template <typename F>
void for_window(const ConvDims& d, int64_t p, int64_t q, F fn) {
  for (int64_t r = 0; r < d.R; ++r)
    for (int64_t s = 0; s < d.S; ++s) {
      int64_t h = p * d.stride - d.pad + r * d.dil, x = q * d.stride - d.pad + s * d.dil;
      if (h >= 0 && h < d.H && x >= 0 && x < d.W) fn(r, s, h, x);
    }
}

std::vector<double> ref_conv(const Workload& w, const In& in, bool nhwc) {
  ConvDims d = conv_dims(w, true);
  int64_t Cg = d.C / d.groups, Kg = d.K / d.groups;
  std::vector<double> out(d.N * d.K * d.P * d.Q);
  for (int64_t n = 0; n < d.N; ++n)
    for (int64_t k = 0; k < d.K; ++k)
      for (int64_t p = 0; p < d.P; ++p)
        for (int64_t q = 0; q < d.Q; ++q) {
          double acc = 0;
          for (int64_t c = 0; c < Cg; ++c) {
            int64_t ci = (k / Kg) * Cg + c;
            for_window(d, p, q, [&](int64_t r, int64_t s, int64_t h, int64_t x) {
              double a = nhwc ? in[0][at({n, h, x, ci}, {d.N, d.H, d.W, d.C})]
                              : in[0][at({n, ci, h, x}, {d.N, d.C, d.H, d.W})];
              double b = nhwc ? in[1][at({r, s, c, k}, {d.R, d.S, Cg, d.K})] : in[1][at({k, c, r, s}, {d.K, Cg, d.R, d.S})];
              acc += a * b;
            });
          }
          out[nhwc ? at({n, p, q, k}, {d.N, d.P, d.Q, d.K}) : at({n, k, p, q}, {d.N, d.K, d.P, d.Q})] = acc;
        }
  return out;
}

std::vector<double> ref_depthwise(const Workload& w, const In& in) {
  ConvDims d = conv_dims(w, false);
  std::vector<double> out(d.N * d.C * d.P * d.Q);
  for (int64_t n = 0; n < d.N; ++n)
    for (int64_t c = 0; c < d.C; ++c)
      for (int64_t p = 0; p < d.P; ++p)
        for (int64_t q = 0; q < d.Q; ++q) {
          double acc = 0;
          for_window(d, p, q, [&](int64_t r, int64_t s, int64_t h, int64_t x) {
            acc += in[0][at({n, c, h, x}, {d.N, d.C, d.H, d.W})] * in[1][at({c, 0, r, s}, {d.C, 1, d.R, d.S})];
          });
          out[at({n, c, p, q}, {d.N, d.C, d.P, d.Q})] = acc;
        }
  return out;
}

// The blocked layouts of ops/blocked.h, indexed by plain channel numbers.
std::vector<double> ref_conv_nchwc(const Workload& w, const In& in) {
  ConvDims d = conv_dims(w, true);
  const int64_t cb = param(w, "cb"), kb = param(w, "kb");
  std::vector<double> out(d.N * d.K * d.P * d.Q);
  for (int64_t n = 0; n < d.N; ++n)
    for (int64_t k = 0; k < d.K; ++k)
      for (int64_t p = 0; p < d.P; ++p)
        for (int64_t q = 0; q < d.Q; ++q) {
          double acc = 0;
          for (int64_t c = 0; c < d.C; ++c)
            for_window(d, p, q, [&](int64_t r, int64_t s, int64_t h, int64_t x) {
              acc += in[0][at({n, c / cb, h, x, c % cb}, {d.N, d.C / cb, d.H, d.W, cb})] *
                     in[1][at({k / kb, c / cb, r, s, c % cb, k % kb}, {d.K / kb, d.C / cb, d.R, d.S, cb, kb})];
            });
          out[at({n, k / kb, p, q, k % kb}, {d.N, d.K / kb, d.P, d.Q, kb})] = acc;
        }
  return out;
}

// Groups of gw = C / groups channels in and out: input channel g·gw + j of
// group g, kernel[K/b, gw/cb, R, S, cb, b] with cb = min(gw, b).
std::vector<double> ref_grouped_nchwc(const Workload& w, const In& in) {
  ConvDims d = conv_dims(w, false);
  const int64_t b = param(w, "b"), gw = d.C / d.groups, cb = std::min(gw, b);
  std::vector<double> out(d.N * d.C * d.P * d.Q);
  for (int64_t n = 0; n < d.N; ++n)
    for (int64_t k = 0; k < d.C; ++k)
      for (int64_t p = 0; p < d.P; ++p)
        for (int64_t q = 0; q < d.Q; ++q) {
          double acc = 0;
          for (int64_t j = 0; j < gw; ++j) {
            const int64_t c = k / gw * gw + j;
            for_window(d, p, q, [&](int64_t r, int64_t s, int64_t h, int64_t x) {
              acc += in[0][at({n, c / b, h, x, c % b}, {d.N, d.C / b, d.H, d.W, b})] *
                     in[1][at({k / b, j / cb, r, s, j % cb, k % b}, {d.C / b, gw / cb, d.R, d.S, cb, b})];
            });
          }
          out[at({n, k / b, p, q, k % b}, {d.N, d.C / b, d.P, d.Q, b})] = acc;
        }
  return out;
}

std::vector<double> ref_depthwise_nchwc(const Workload& w, const In& in) {
  ConvDims d = conv_dims(w, false);
  const int64_t b = param(w, "b");
  std::vector<double> out(d.N * d.C * d.P * d.Q);
  for (int64_t n = 0; n < d.N; ++n)
    for (int64_t c = 0; c < d.C; ++c)
      for (int64_t p = 0; p < d.P; ++p)
        for (int64_t q = 0; q < d.Q; ++q) {
          double acc = 0;
          for_window(d, p, q, [&](int64_t r, int64_t s, int64_t h, int64_t x) {
            acc += in[0][at({n, c / b, h, x, c % b}, {d.N, d.C / b, d.H, d.W, b})] *
                   in[1][at({c / b, r, s, c % b}, {d.C / b, d.R, d.S, b})];
          });
          out[at({n, c / b, p, q, c % b}, {d.N, d.C / b, d.P, d.Q, b})] = acc;
        }
  return out;
}

std::vector<double> ref_pool(const Workload& w, const In& in, bool is_max) {
  ConvDims d = conv_dims(w, false);
  std::vector<double> out(d.N * d.C * d.P * d.Q);
  for (int64_t n = 0; n < d.N; ++n)
    for (int64_t c = 0; c < d.C; ++c)
      for (int64_t p = 0; p < d.P; ++p)
        for (int64_t q = 0; q < d.Q; ++q) {
          double acc = is_max ? -std::numeric_limits<double>::infinity() : 0;
          int count = 0;
          for_window(d, p, q, [&](int64_t, int64_t, int64_t h, int64_t x) {
            double v = in[0][at({n, c, h, x}, {d.N, d.C, d.H, d.W})];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++count;
          });
          out[at({n, c, p, q}, {d.N, d.C, d.P, d.Q})] = is_max ? acc : acc / count;
        }
  return out;
}

std::vector<double> ref_softmax(const Workload& w, const In& in) {
  int64_t M = param(w, "M"), N = param(w, "N");
  std::vector<double> out(M * N);
  for (int64_t i = 0; i < M; ++i) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t j = 0; j < N; ++j) mx = std::max(mx, in[0][i * N + j]);
    for (int64_t j = 0; j < N; ++j) sum += std::exp(in[0][i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j) out[i * N + j] = std::exp(in[0][i * N + j] - mx) / sum;
  }
  return out;
}

std::vector<double> ref_layer_norm(const Workload& w, const In& in) {
  int64_t M = param(w, "M"), N = param(w, "N");
  std::vector<double> out(M * N);
  for (int64_t i = 0; i < M; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < N; ++j) mean += in[0][i * N + j];
    mean /= static_cast<double>(N);
    for (int64_t j = 0; j < N; ++j) var += (in[0][i * N + j] - mean) * (in[0][i * N + j] - mean);
    var /= static_cast<double>(N);
    for (int64_t j = 0; j < N; ++j)
      out[i * N + j] = (in[0][i * N + j] - mean) / std::sqrt(var + 1e-5) * in[1][j] + in[2][j];
  }
  return out;
}

Reference elementwise(std::function<double(double, double)> fn) {
  return [fn](const Workload&, const In& in) {
    std::vector<double> out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = fn(in[0][i], in.size() > 1 ? in[1][i] : 0.0);
    return out;
  };
}

std::vector<double> ref_reduce_sum(const Workload& w, const In& in) {
  int64_t M = param(w, "M"), N = param(w, "N");
  std::vector<double> out(M, 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) out[i] += in[0][i * N + j];
  return out;
}

// --- cases ----------------------------------------------------------------------

const char* kMatrixShapes[] = {"M=4,N=8", "M=7,N=1", "M=1,N=13", "M=5,N=11"};

TEST(OpsNumeric, Matmul) {
  for (const char* s : {"M=4,N=5,K=6", "M=7,N=1,K=13", "M=1,N=11,K=1", "M=3,N=2,K=17"})
    check(std::string("matmul:") + s, ref_matmul);
}

TEST(OpsNumeric, BatchMatmul) {
  for (const char* s : {"B=2,M=3,N=4,K=5", "B=1,M=5,N=7,K=3", "B=3,M=1,N=1,K=2", "B=5,M=2,N=3,K=1"})
    check(std::string("batch_matmul:") + s, ref_batch_matmul);
}

TEST(OpsNumeric, Dense) {
  for (const char* s : {"M=4,N=5,K=6", "M=3,N=7,K=5,bias=1", "M=5,N=3,K=7,bias=1,act=relu", "M=1,N=2,K=3,act=relu",
                        "M=1,N=1,K=1,bias=1"})
    check(std::string("dense:") + s, ref_dense);
}

const char* kConvShapes[] = {
    "N=1,C=3,H=6,W=6,K=4,R=3,S=3,stride=1,pad=1",
    "N=2,C=4,H=7,W=5,K=6,R=3,S=2,stride=2,pad=1,groups=2",
    "N=1,C=1,H=5,W=7,K=1,R=1,S=3,stride=1,pad=0",
    "N=1,C=3,H=11,W=7,K=2,R=3,S=3,stride=3,pad=2,dilation=2",
    "N=1,C=6,H=3,W=3,K=3,R=3,S=3,stride=1,pad=2,groups=3",
    "N=1,C=1,H=1,W=1,K=1,R=1,S=1,stride=1,pad=0",
};

TEST(OpsNumeric, Conv2dNchw) {
  for (const char* s : kConvShapes)
    check(std::string("conv2d_nchw:") + s, [](const Workload& w, const In& in) { return ref_conv(w, in, false); });
}

TEST(OpsNumeric, Conv2dNhwc) {
  for (const char* s : kConvShapes)
    check(std::string("conv2d_nhwc:") + s, [](const Workload& w, const In& in) { return ref_conv(w, in, true); });
}

TEST(OpsNumeric, DepthwiseConv2d) {
  for (const char* s : {"N=1,C=3,H=6,W=6,R=3,S=3,stride=1,pad=1", "N=2,C=5,H=7,W=3,R=3,S=1,stride=2,pad=0",
                        "N=1,C=1,H=1,W=1,R=1,S=1,stride=1,pad=0", "N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=2"})
    check(std::string("depthwise_conv2d_nchw:") + s, ref_depthwise);
}

TEST(OpsNumeric, Conv2dNchwc) {
  for (const char* s : {"N=1,C=8,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1,cb=4,kb=8",
                        "N=2,C=6,H=7,W=5,K=4,R=3,S=2,stride=2,pad=1,cb=3,kb=2",
                        "N=1,C=3,H=11,W=7,K=4,R=3,S=3,stride=3,pad=2,dilation=2,cb=1,kb=4",
                        "N=1,C=1,H=1,W=1,K=1,R=1,S=1,stride=1,pad=0,cb=1,kb=1"})
    check(std::string("conv2d_nchwc:") + s, ref_conv_nchwc);
}

TEST(OpsNumeric, DepthwiseConv2dNchwc) {
  for (const char* s : {"N=1,C=8,H=6,W=6,R=3,S=3,stride=1,pad=1,b=4", "N=2,C=6,H=7,W=3,R=3,S=1,stride=2,pad=0,b=2",
                        "N=1,C=4,H=5,W=5,R=3,S=3,stride=2,pad=2,dilation=2,b=4"})
    check(std::string("depthwise_conv2d_nchwc:") + s, ref_depthwise_nchwc);
}

TEST(OpsNumeric, GroupedConv2dNchwc) {
  // Groups of 2 in blocks of 4 (two groups to a block), of 4 (one), of 4
  // in blocks of 2 (two blocks to a group), the last dilated.
  for (const char* s : {"N=1,C=8,H=6,W=6,R=3,S=3,stride=1,pad=1,b=4,groups=4",
                        "N=2,C=8,H=5,W=7,R=3,S=2,stride=2,pad=1,b=4,groups=2",
                        "N=1,C=8,H=6,W=5,R=3,S=3,stride=1,pad=2,dilation=2,b=2,groups=2"})
    check(std::string("grouped_conv2d_nchwc:") + s, ref_grouped_nchwc);
}

const char* kPoolShapes[] = {"N=1,C=2,H=6,W=6,R=2,S=2,stride=2,pad=0", "N=2,C=3,H=7,W=5,R=3,S=3,stride=2,pad=1",
                             "N=1,C=1,H=1,W=1,R=1,S=1,stride=1,pad=0", "N=1,C=1,H=5,W=3,R=3,S=2,stride=1,pad=1",
                             "N=1,C=2,H=3,W=3,R=3,S=3,stride=1,pad=2"};

TEST(OpsNumeric, MaxPool2d) {
  for (const char* s : kPoolShapes)
    check(std::string("max_pool2d:") + s, [](const Workload& w, const In& in) { return ref_pool(w, in, true); });
}

TEST(OpsNumeric, AvgPool2dLeavesPaddingOutOfTheCount) {
  for (const char* s : kPoolShapes)
    check(std::string("avg_pool2d:") + s, [](const Workload& w, const In& in) { return ref_pool(w, in, false); });
}

TEST(OpsNumeric, Softmax) {
  for (const char* s : kMatrixShapes) check(std::string("softmax:") + s, ref_softmax);
}

TEST(OpsNumeric, LayerNorm) {
  for (const char* s : kMatrixShapes) check(std::string("layer_norm:") + s, ref_layer_norm);
}

TEST(OpsNumeric, Elementwise) {
  for (const char* s : kMatrixShapes) {
    check(std::string("add:") + s, elementwise([](double a, double b) { return a + b; }));
    check(std::string("mul:") + s, elementwise([](double a, double b) { return a * b; }));
    check(std::string("relu:") + s, elementwise([](double a, double) { return std::max(a, 0.0); }));
  }
}

TEST(OpsNumeric, ReduceSum) {
  for (const char* s : kMatrixShapes) check(std::string("reduce_sum:") + s, ref_reduce_sum);
}

// Integer types accumulate in their own type and wrap, as documented.
TEST(OpsNumeric, IntegerTypes) {
  check("matmul:M=5,N=3,K=7,dtype=int32", ref_matmul);
  check("matmul:M=3,N=3,K=40,dtype=int8", ref_matmul);  // sums leave int8's range and wrap
  check("conv2d_nchw:N=1,C=2,H=5,W=5,K=3,R=3,S=3,stride=1,pad=1,dtype=int32",
        [](const Workload& w, const In& in) { return ref_conv(w, in, false); });
  // Padding with int8's lowest value never wins a max.
  check("max_pool2d:N=1,C=2,H=5,W=4,R=3,S=3,stride=2,pad=1,dtype=int8",
        [](const Workload& w, const In& in) { return ref_pool(w, in, true); });
  check("reduce_sum:M=3,N=5,dtype=int32", ref_reduce_sum);
}

TEST(OpsNumeric, Float16StaysWithinHalfPrecision) {
  // float16 keeps 11 significant bits; a 16-term sum of values below 1 stays within 1e-2.
  check("matmul:M=4,N=3,K=16,dtype=float16", ref_matmul, 1e-2);
  check("softmax:M=3,N=7,dtype=float16", ref_softmax, 1e-2);
}

TEST(OpsNumeric, SoftmaxIsStableForLargeInputs) {
  // exp(1000) overflows; subtracting the row maximum first keeps the result exact.
  Workload w = ops::parse_workload("softmax:M=2,N=3");
  PrimFunc f = ops::build_workload(w);
  std::vector<float> a{1000.0f, 999.0f, 998.0f, -1000.0f, -1001.0f, -1000.0f}, out(6, 0.0f);
  interpret(f, {HostBuffer{DataType::Float32(), {2, 3}, a.data()}, HostBuffer{DataType::Float32(), {2, 3}, out.data()}});
  double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  EXPECT_NEAR(out[0], 1 / z, 1e-6);
  EXPECT_NEAR(out[2], std::exp(-2.0) / z, 1e-6);
  double z2 = 2 + std::exp(-1.0);
  EXPECT_NEAR(out[4], std::exp(-1.0) / z2, 1e-6);
}

}  // namespace
}  // namespace kiln
