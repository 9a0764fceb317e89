// kiln_memory_bench: how fast this machine's threads read memory, by how
// much they read, and how far apart they run.
//
//   kiln_memory_bench [--sizes 1,4,8,16,24,32,64] [--threads 2] [--repeat 30]
//
// For each size (MiB), the best of --repeat sweeps that sum a buffer of
// that size, once with one thread and once with --threads threads of
// kiln's pool (each summing a contiguous share, as a kernel's static
// chunks do); then the pool's cache-line round trip
// (targets/runtime/thread_distance.h). A buffer that the L3 holds reads
// several times faster than one that it does not, so the size where the
// rate falls says how much of the L3 is this machine's at the moment:
// on a shared host it changes by the hour, and with it the latency of a
// model whose weights and activations are near that size
// (docs/onnx.md, "The slow state"). One JSON object on stdout.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/guarded_main.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_distance.h"
#include "targets/runtime/thread_pool.h"

namespace kiln::bench {
namespace {

// The sum of x[begin, end), in 16 independent partial sums so that the
// adds do not wait on each other and the loads set the pace.
float sum(const float* x, int64_t begin, int64_t end) {
  float part[16] = {};
  int64_t i = begin;
  for (; i + 16 <= end; i += 16)
    for (int k = 0; k < 16; ++k) part[k] += x[i + k];
  for (; i < end; ++i) part[0] += x[i];
  float s = 0;
  for (float p : part) s += p;
  return s;
}

// GB/s of the fastest of `repeat` sweeps over `n` floats by `pool`'s
// threads (all of them, or only the caller with `one`).
double read_rate(ThreadPool& pool, const float* x, int64_t n, int repeat, bool one, volatile float* sink) {
  double best = 1e30;
  const int64_t parts = one ? 1 : pool.num_threads();
  for (int r = 0; r < repeat; ++r) {
    std::vector<float> out(static_cast<size_t>(parts));
    const auto t0 = std::chrono::steady_clock::now();
    if (one) out[0] = sum(x, 0, n);
    else pool.parallel_for(parts, [&](int64_t p) { out[p] = sum(x, n * p / parts, n * (p + 1) / parts); });
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    *sink = *sink + out[0];
  }
  return static_cast<double>(n) * sizeof(float) / best / 1e9;
}

int run(int argc, char** argv) {
  CLI::App app("kiln_memory_bench: read rates by size and threads, and the threads' round trip");
  std::vector<int64_t> sizes = {1, 4, 8, 16, 24, 32, 64};
  int threads = 2, repeat = 30;
  app.add_option("--sizes", sizes, "buffer sizes in MiB")->delimiter(',');
  app.add_option("--threads", threads, "threads of the pool")->check(CLI::PositiveNumber);
  app.add_option("--repeat", repeat, "sweeps per size; the fastest counts")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  ThreadPool pool(threads);
  volatile float sink = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t mib : sizes) {
    const int64_t n = mib * (1 << 20) / static_cast<int64_t>(sizeof(float));
    NDArray buf(DataType::Float32(), {n});
    std::fill_n(static_cast<float*>(buf.data()), n, 1.0f);
    const float* x = static_cast<const float*>(buf.data());
    rows.push_back({{"mib", mib},
                    {"one_thread_gb_s", read_rate(pool, x, n, repeat, true, &sink)},
                    {"all_threads_gb_s", read_rate(pool, x, n, repeat, false, &sink)}});
  }
  std::cout << nlohmann::json{{"threads", threads},
                              {"thread_round_trip_ns", thread_round_trip_ns(pool)},
                              {"reads", rows}}
                   .dump(1)
            << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_memory_bench", kiln::bench::run, argc, argv); }
