// How fast the interpreter runs a block-form matmul: printed, not asserted
// (timings vary with the machine and its load). The 512^3 check the tuner
// relies on is DISABLED_ to keep the suite fast; run it with
// --gtest_also_run_disabled_tests --gtest_filter='*Matmul512*'.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "test_programs.h"

namespace kiln {
namespace {

using test::host;
using test::kF32;

double run_matmul(int n, float* probe_got, float* probe_want) {
  auto a = test::ramp_data(size_t(n) * n, 11), b = test::ramp_data(size_t(n) * n, 12);
  std::vector<float> c(size_t(n) * n);
  Interpreter interp(test::matmul_block(n, n, n));
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  interp.run({host(a, kF32, {n, n}), host(b, kF32, {n, n}), host(c, kF32, {n, n})});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc = acc + a[size_t(n - 1) * n + k] * b[size_t(k) * n + 1];
  *probe_got = c[size_t(n - 1) * n + 1];
  *probe_want = acc;
  double iters = double(n) * n * n;
  std::printf("[ interp   ] matmul %d^3 in block form: %.3f s wall, %.3f s cpu, %.1f ns (cpu) per multiply-add\n", n, s,
              cpu, cpu / iters * 1e9);
  return s;
}

TEST(InterpThroughput, Matmul128) {
  float got = 0, want = 1;
  run_matmul(128, &got, &want);
  EXPECT_EQ(got, want);
}

TEST(InterpThroughput, DISABLED_Matmul512) {
  float got = 0, want = 1;
  run_matmul(512, &got, &want);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace kiln
