// The runtime: arrays, 16-bit float conversions, the thread pool and the
// runtime API table that kernels call back into.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/error.h"
#include "targets/runtime/compiled_kernel.h"
#include "targets/runtime/half.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_distance.h"
#include "targets/runtime/thread_pool.h"

namespace kiln {
namespace {

TEST(NDArray, AlignedZeroedAndSized) {
  for (int64_t n : {1, 3, 17, 1000}) {
    NDArray a(DataType::Float32(), {n, 3});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
    EXPECT_EQ(a.numel(), n * 3);
    EXPECT_EQ(a.nbytes(), static_cast<size_t>(n * 3 * 4));
    for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data_as<float>()[i], 0.0f);
  }
  NDArray b(DataType::Bool(), {5});
  EXPECT_EQ(b.nbytes(), 5u);
  NDArray empty(DataType::Int(8), {0});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_NE(empty.data(), nullptr);
}

// An array of 2 MiB or more starts on a 2 MiB boundary, where the kernel
// can back it with huge pages (ndarray.cpp); a smaller one only on a line.
TEST(NDArray, ArraysOfAHugePageOrMoreStartOnOne) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  for (int64_t n : {int64_t{1} << 19, (int64_t{1} << 19) + 5, int64_t{3} << 20}) {
    NDArray a(DataType::Float32(), {n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kHuge, 0u) << n << " floats";
    EXPECT_EQ(a.nbytes(), static_cast<size_t>(n) * 4);
    EXPECT_EQ(a.data_as<float>()[n - 1], 0.0f);
  }
  std::vector<NDArray> small;
  for (int k = 0; k < 4; ++k) small.emplace_back(DataType::Float32(), std::vector<int64_t>{1000});
  size_t off_boundary = 0;
  for (const NDArray& a : small) off_boundary += reinterpret_cast<uintptr_t>(a.data()) % kHuge != 0;
  EXPECT_GT(off_boundary, 0u) << "small arrays are not padded out to huge pages";
}

TEST(NDArray, Errors) {
  EXPECT_THROW(NDArray(DataType::Float(32, 4), {2}), Error);
  EXPECT_THROW(NDArray(DataType::Float32(), {2, -1}), Error);
}

TEST(NDArray, RandomFillIsSeededAndInRange) {
  NDArray a(DataType::Float32(), {256}), b(DataType::Float32(), {256}), c(DataType::Float32(), {256});
  a.fill_random(7, -2.0, 3.0);
  b.fill_random(7, -2.0, 3.0);
  c.fill_random(8, -2.0, 3.0);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.nbytes()), 0);
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_GE(a.get(i), -2.0);
    EXPECT_LT(a.get(i), 3.0);
  }
  NDArray i8(DataType::Int(8), {1000});
  i8.fill_random(1, -500, 500);  // clipped to int8's range
  std::set<int> seen;
  for (int64_t i = 0; i < i8.numel(); ++i) seen.insert(static_cast<int>(i8.get(i)));
  EXPECT_EQ(*seen.begin(), -128);
  EXPECT_EQ(*seen.rbegin(), 127);
  NDArray h(DataType::Float(16), {64});
  h.fill_random(3, 0.0, 1.0);
  for (int64_t i = 0; i < h.numel(); ++i) EXPECT_EQ(h.get(i), half_to_float(float_to_half(h.get(i))));
}

TEST(NDArray, CopyIsDeep) {
  NDArray a(DataType::Int32(), {4});
  a.set(2, 42);
  NDArray b = a.copy();
  a.set(2, 0);
  EXPECT_EQ(b.get(2), 42);
  EXPECT_EQ(b.host_buffer().data, b.data());
}

TEST(Half, MatchesCompilerConversions) {
  // Every half value round-trips through float.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), h) << h;
    ASSERT_EQ(static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(h))), f) << h;
  }
  // Rounding of floats between halves: compare with the compiler's _Float16.
  uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1664525u + 1013904223u;
    // Every magnitude from float subnormals to past the largest half (2^17).
    float f = std::bit_cast<float>((x & 0x80000000u) | ((x & 0x7fffffffu) % 0x48000000u));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), std::bit_cast<uint16_t>(static_cast<_Float16>(f))) << f;
  }
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties to the even (1.0).
  EXPECT_EQ(float_to_bfloat16(1.0f + 1.0f / 256), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(NAN))));
}

// Sets an environment variable for the scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class ThreadPoolTest : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolTest, RunsEveryTaskExactlyOnce) {
  ThreadPool pool(GetParam());
  EXPECT_EQ(pool.num_threads(), GetParam());
  for (int64_t n : {0, 1, 2, 3, 7, 100, 1001}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.parallel_for(n, [&](int64_t t) { hits[static_cast<size_t>(t)]++; });
    for (int64_t t = 0; t < n; ++t) ASSERT_EQ(hits[static_cast<size_t>(t)].load(), 1) << "n=" << n << " t=" << t;
  }
}

TEST_P(ThreadPoolTest, DynamicRunsEveryTaskExactlyOnceAndRethrows) {
  ThreadPool pool(GetParam());
  for (int64_t n : {0, 1, 2, 3, 7, 100, 1001}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.parallel_for_dynamic(n, [&](int64_t t) { hits[static_cast<size_t>(t)]++; });
    for (int64_t t = 0; t < n; ++t) ASSERT_EQ(hits[static_cast<size_t>(t)].load(), 1) << "n=" << n << " t=" << t;
  }
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.parallel_for_dynamic(6,
                                         [&](int64_t t) {
                                           ran++;
                                           if (t == 2) throw Error("task 2 failed");
                                         }),
               Error);
  EXPECT_EQ(ran.load(), 6);
}

TEST(ThreadPool, DynamicTasksGoToWhoeverIsFree) {
  // Task 0 lasts until all the others are done: with static chunks its
  // thread would also own half of the rest (and wait forever); taken one
  // at a time, the other thread runs every one of them.
  ThreadPool pool(2);
  std::atomic<int> rest_done{0};
  std::mutex mu;
  std::thread::id first_owner;
  std::set<std::thread::id> rest_owners;
  pool.parallel_for_dynamic(9, [&](int64_t t) {
    if (t == 0) {
      {
        std::lock_guard<std::mutex> lock(mu);
        first_owner = std::this_thread::get_id();
      }
      while (rest_done.load() < 8) std::this_thread::yield();
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    rest_owners.insert(std::this_thread::get_id());
    rest_done++;
  });
  EXPECT_EQ(rest_done.load(), 8);
  EXPECT_EQ(rest_owners.size(), 1u);
  EXPECT_EQ(rest_owners.count(first_owner), 0u);
}

TEST_P(ThreadPoolTest, UsesStaticContiguousChunksAndTheCaller) {
  const int p = GetParam();
  ThreadPool pool(p);
  std::mutex mu;
  std::vector<std::thread::id> owner(10);
  pool.parallel_for(10, [&](int64_t t) {
    std::lock_guard<std::mutex> lock(mu);
    owner[static_cast<size_t>(t)] = std::this_thread::get_id();
  });
  // Participant 0 is the caller and owns the first chunk.
  EXPECT_EQ(owner[0], std::this_thread::get_id());
  std::set<std::thread::id> distinct(owner.begin(), owner.end());
  EXPECT_EQ(static_cast<int>(distinct.size()), p);
  for (int q = 0; q < p; ++q) {
    for (int64_t t = 10 * q / p; t < 10 * (q + 1) / p; ++t) EXPECT_EQ(owner[static_cast<size_t>(t)], owner[10 * q / p]);
  }
}

TEST_P(ThreadPoolTest, NestedCallsRunSerially) {
  ThreadPool pool(GetParam());
  std::atomic<int> total{0};
  pool.parallel_for(4, [&](int64_t) {
    EXPECT_TRUE(ThreadPool::in_parallel_region());
    std::thread::id me = std::this_thread::get_id();
    pool.parallel_for(5, [&](int64_t) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      total++;
    });
  });
  EXPECT_EQ(total.load(), 20);
  EXPECT_FALSE(ThreadPool::in_parallel_region());
}

TEST_P(ThreadPoolTest, RethrowsTaskExceptions) {
  ThreadPool pool(GetParam());
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.parallel_for(6,
                                 [&](int64_t t) {
                                   ran++;
                                   if (t == 4) throw Error("task 4 failed");
                                 }),
               Error);
  EXPECT_EQ(ran.load(), 6);
  // The pool still works afterwards.
  std::atomic<int> again{0};
  pool.parallel_for(3, [&](int64_t) { again++; });
  EXPECT_EQ(again.load(), 3);
}

struct LaunchRecord {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> calls;  // (task, num_tasks)
  int32_t fail_task = -1;
};

int32_t record_task(int64_t task, int64_t num_tasks, void* closure) {
  auto* r = static_cast<LaunchRecord*>(closure);
  std::lock_guard<std::mutex> lock(r->mu);
  r->calls.emplace_back(task, num_tasks);
  return task == r->fail_task ? 7 : 0;
}

TEST_P(ThreadPoolTest, RuntimeApiLaunchesAtMostOneTaskPerThread) {
  const int p = GetParam();
  ThreadPool pool(p);
  KilnRuntimeApi api = runtime_api_for(pool);
  EXPECT_EQ(api.version, static_cast<uint32_t>(KILN_RUNTIME_API_VERSION));
  LaunchRecord rec;
  EXPECT_EQ(api.parallel_launch(api.pool, &record_task, &rec, 100), 0);
  ASSERT_EQ(static_cast<int>(rec.calls.size()), p);
  std::set<int64_t> tasks;
  for (auto [t, n] : rec.calls) {
    EXPECT_EQ(n, p);
    tasks.insert(t);
  }
  EXPECT_EQ(static_cast<int>(tasks.size()), p);

  LaunchRecord one;
  EXPECT_EQ(api.parallel_launch(api.pool, &record_task, &one, 1), 0);
  EXPECT_EQ(one.calls, (std::vector<std::pair<int64_t, int64_t>>{{0, 1}}));

  LaunchRecord failing;
  failing.fail_task = p - 1;
  EXPECT_EQ(api.parallel_launch(api.pool, &record_task, &failing, 8), 7);
  LaunchRecord after;  // a failed launch's status stays with it
  EXPECT_EQ(api.parallel_launch(api.pool, &record_task, &after, 8), 0);

  void* s = api.alloc_scratch(api.pool, 1000, 64);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s) % 64, 0u);
  api.free_scratch(api.pool, s);
}

TEST_P(ThreadPoolTest, BackToBackJobsWithIdleGapsEachRunOnce) {
  // Jobs that follow each other at once are picked up by spinning workers,
  // jobs after a pause longer than the spin by blocked ones: both hand-overs,
  // and the switch between them, must neither drop nor repeat a task. (The
  // tests' environment turns spinning off; this pool spins.)
  ScopedEnv spin("KILN_POOL_SPIN_US", "2000");
  ThreadPool pool(GetParam());
  int64_t sum = 0;
  std::atomic<int64_t> total{0};
  for (int job = 0; job < 3000; ++job) {
    if (job % 1000 == 999) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int64_t n = 1 + job % 5;
    pool.parallel_for(n, [&](int64_t t) { total += t + 1; });
    sum += n * (n + 1) / 2;
    ASSERT_EQ(total.load(), sum) << "job " << job;
  }
}

TEST_P(ThreadPoolTest, LaunchesAndLoopsInTurnKeepTheirOwnTasksAndStatuses) {
  // A launch carries its C function and closure in the job itself, a
  // parallel_for its std::function: jobs of the two kinds back to back, some
  // after the workers have blocked, each run their own tasks and report
  // their own status.
  ScopedEnv spin("KILN_POOL_SPIN_US", "2000");
  const int p = GetParam();
  ThreadPool pool(p);
  for (int job = 0; job < 600; ++job) {
    if (job % 200 == 199) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    LaunchRecord rec;
    rec.fail_task = job % 3 == 0 ? p - 1 : -1;
    ASSERT_EQ(pool.launch(&record_task, &rec, 8), job % 3 == 0 ? 7 : 0) << "job " << job;
    ASSERT_EQ(static_cast<int>(rec.calls.size()), p) << "job " << job;
    std::atomic<int64_t> total{0};
    pool.parallel_for(5, [&](int64_t t) { total += t + 1; });
    ASSERT_EQ(total.load(), 15) << "job " << job;
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2));

TEST(ThreadPool, MoreThreadsThanCoresStillRunEveryTask) {
  // Past the machine's cores nobody spins: the workers block between jobs.
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) * 2 + 1;
  ThreadPool pool(threads);
  for (int job = 0; job < 200; ++job) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(threads));
    pool.parallel_for(threads, [&](int64_t t) { hits[static_cast<size_t>(t)]++; });
    for (int t = 0; t < threads; ++t) ASSERT_EQ(hits[static_cast<size_t>(t)].load(), 1) << "job " << job;
  }
}

TEST(ThreadDistance, ARoundTripTakesTimeOnlyBetweenTwoThreads) {
  // One thread has no partner: zero, at once. Two pass the line back and
  // forth: some nanoseconds each time, and the call returns (neither side
  // waits for a partner that never comes), from inside a task too.
  ThreadPool one(1);
  EXPECT_EQ(thread_round_trip_ns(one), 0);
  // (How long is the machine's business: tests run two at a time here, so
  // a trip may wait for a core.)
  ThreadPool two(2);
  EXPECT_GT(thread_round_trip_ns(two, 200), 0);
  double nested = -1;
  two.parallel_for(1, [&](int64_t) { nested = thread_round_trip_ns(two); });
  EXPECT_EQ(nested, 0);
}

TEST(ThreadPool, RejectsZeroThreads) { EXPECT_THROW(ThreadPool(0), Error); }

TEST(ThreadPool, RejectsASpinThatIsNotWholeMicroseconds) {
  ScopedEnv spin("KILN_POOL_SPIN_US", "2ms");
  EXPECT_THROW(ThreadPool(1), Error);
}

TEST(CompiledKernel, ParsesSignatures) {
  auto params = CompiledKernel::parse_signature("A:float32:1024;idx:int64:-1;m:bool:3");
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].name, "A");
  EXPECT_EQ(params[0].dtype, DataType::Float32());
  EXPECT_EQ(params[0].numel, 1024);
  EXPECT_EQ(params[1].numel, -1);
  EXPECT_EQ(params[2].dtype, DataType::Bool());
  EXPECT_TRUE(CompiledKernel::parse_signature("").empty());
  EXPECT_THROW(CompiledKernel::parse_signature("A:float32"), Error);
  EXPECT_THROW(CompiledKernel::parse_signature("A:float32:x"), Error);
}

}  // namespace
}  // namespace kiln
