#include "targets/runtime/thread_distance.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace kiln {

namespace {

// Spins until `ball` holds `value`. Past a few thousand checks it yields
// between them: with more runnable threads than cores (tests run two at a
// time) the partner may wait for this core, and a pure spin would hold it
// for a whole time slice per trip.
void wait_for(const std::atomic<int64_t>& ball, int64_t value) {
  for (int spins = 0; ball.load(std::memory_order_acquire) != value; ++spins)
    if (spins > 4096) std::this_thread::yield();
}

}  // namespace

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
        wait_for(ball, 2 * i + 2);
      }
      spent = std::chrono::steady_clock::now() - start;
      return;
    }
    for (int64_t i = 0; i < round_trips; ++i) {
      wait_for(ball, 2 * i + 1);
      ball.store(2 * i + 2, std::memory_order_release);
    }
  });
  return std::chrono::duration<double, std::nano>(spent).count() / round_trips;
}

}  // namespace kiln
