// The scratch pool: a freed block serves the next request it fits, by size
// and alignment, and no more than it should keep.
#include "targets/runtime/scratch_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace kiln {
namespace {

bool aligned(const void* p, uint64_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

TEST(ScratchPool, AFreedBlockServesTheNextRequestThatFitsIt) {
  ScratchPool pool;
  void* a = pool.allocate(861 * 1024, 64);
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, 861 * 1024);
  pool.release(a);
  EXPECT_EQ(pool.kept_bytes(), 216u * 4096);  // whole pages
  // The same request, and one a few bytes off (rounded to the same pages).
  EXPECT_EQ(pool.allocate(861 * 1024, 64), a);
  pool.release(a);
  EXPECT_EQ(pool.allocate(861 * 1024 - 100, 64), a);
  pool.release(a);
  EXPECT_EQ(pool.system_allocations(), 1);
}

TEST(ScratchPool, LiveBlocksAreDistinctAndEachIsKeptWhenFreed) {
  ScratchPool pool;
  void* a = pool.allocate(100000, 64);
  void* b = pool.allocate(100000, 64);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  pool.release(a);
  pool.release(b);
  void* c = pool.allocate(100000, 64);
  void* d = pool.allocate(100000, 64);
  EXPECT_TRUE((c == a && d == b) || (c == b && d == a));
  EXPECT_EQ(pool.system_allocations(), 2);
  pool.release(c);
  pool.release(d);
}

TEST(ScratchPool, ARequestTakesNeitherASmallerBlockNorOneMoreThanTwiceItsSize) {
  ScratchPool pool;
  void* big = pool.allocate(1 << 20, 64);
  pool.release(big);
  void* small = pool.allocate(100000, 64);  // the 1 MB block is kept for a large request
  EXPECT_NE(small, big);
  void* large = pool.allocate(2 << 20, 64);  // larger than anything kept
  EXPECT_NE(large, big);
  void* half = pool.allocate(600 * 1024, 64);  // 1 MB is under twice 600 KB: it fits
  EXPECT_EQ(half, big);
  EXPECT_EQ(pool.system_allocations(), 3);
  pool.release(small);
  pool.release(large);
  pool.release(half);
}

TEST(ScratchPool, AlignmentIsHonouredFreshAndReused) {
  ScratchPool pool;
  for (uint64_t alignment : {1u, 8u, 64u, 4096u, 8192u}) {
    SCOPED_TRACE(alignment);
    void* p = pool.allocate(5000, alignment);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(aligned(p, alignment));
    pool.release(p);
  }
  // A kept block aligned only to 4096 does not serve a request for 8192 unless it happens to be.
  void* p = pool.allocate(5000, 8192);
  EXPECT_TRUE(aligned(p, 8192));
  pool.release(p);
}

TEST(ScratchPool, KeepsNoMoreThanItsLimitAndFreesTheRest) {
  ScratchPool pool(256 * 1024);
  void* a = pool.allocate(200 * 1024, 64);
  void* b = pool.allocate(200 * 1024, 64);
  pool.release(a);
  pool.release(b);  // 400 KB would pass the 256 KB limit: b goes back to the system
  EXPECT_EQ(pool.kept_bytes(), 50u * 4096);
  void* c = pool.allocate(200 * 1024, 64);
  EXPECT_EQ(c, a);
  EXPECT_EQ(pool.kept_bytes(), 0u);
  void* d = pool.allocate(200 * 1024, 64);
  EXPECT_NE(d, a);
  EXPECT_EQ(pool.system_allocations(), 3);
  pool.release(c);
  pool.release(d);
}

TEST(ScratchPool, ThreadsAllocateAndFreeAtOnce) {
  ScratchPool pool;
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const uint64_t n = 40000 + 4096 * static_cast<uint64_t>((i + t) % 5);
        auto* p = static_cast<unsigned char*>(pool.allocate(n, 64));
        if (!p) {
          ++failures[t];
          continue;
        }
        std::memset(p, t, n);  // a block handed to two threads at once would be overwritten
        for (uint64_t k = 0; k < n; k += 997)
          if (p[k] != t) ++failures[t];
        pool.release(p);
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << t;
  EXPECT_LE(pool.system_allocations(), 4 * 5);
}

TEST(ScratchPoolDeathTest, FreeingABlockItDidNotHandOutAborts) {
  ScratchPool pool;
  int not_scratch = 0;
  EXPECT_DEATH(pool.release(&not_scratch), "scratch block .* freed that the pool did not hand out");
}

}  // namespace
}  // namespace kiln
