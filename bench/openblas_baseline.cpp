#include <cblas.h>

#include <chrono>

#include "bench/baselines.h"

extern "C" char* openblas_get_corename(void);

namespace kiln::bench {

std::vector<double> openblas_sgemm(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                                   int threads, int repeat) {
  openblas_set_num_threads(threads);
  auto run = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(M), static_cast<blasint>(N),
                static_cast<blasint>(K), 1.0f, A, static_cast<blasint>(K), B, static_cast<blasint>(N), 0.0f, C,
                static_cast<blasint>(N));
  };
  run();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return times;
}

const char* openblas_core_name() { return openblas_get_corename(); }

}  // namespace kiln::bench
