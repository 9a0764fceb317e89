#include "targets/runtime/thread_distance.h"

#include <atomic>
#include <chrono>

namespace kiln {

double thread_round_trip_ns(ThreadPool& pool, int round_trips) {
  if (pool.num_threads() < 2 || ThreadPool::in_parallel_region() || round_trips <= 0) return 0;
  // Two tasks on two participants (static chunks of at most one task each
  // when there are at least two): both run at once, so neither waits for
  // a partner that never comes.
  alignas(64) std::atomic<int64_t> ball{0};
  std::chrono::steady_clock::duration spent{};
  pool.parallel_for(2, [&](int64_t task) {
    if (task == 0) {
      const auto start = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < round_trips; ++i) {
        ball.store(2 * i + 1, std::memory_order_release);
        while (ball.load(std::memory_order_acquire) != 2 * i + 2) {
        }
      }
      spent = std::chrono::steady_clock::now() - start;
      return;
    }
    for (int64_t i = 0; i < round_trips; ++i) {
      while (ball.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      ball.store(2 * i + 2, std::memory_order_release);
    }
  });
  return std::chrono::duration<double, std::nano>(spent).count() / round_trips;
}

}  // namespace kiln
