#include "targets/runtime/scratch_pool.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#endif
#if defined(KILN_ASAN)
#include <sanitizer/asan_interface.h>
#define KILN_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define KILN_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define KILN_POISON(p, n) ((void)(p), (void)(n))
#define KILN_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace kiln {
namespace {

constexpr uint64_t kPage = 4096;

// What a request of `nbytes` at `alignment` takes from the system: whole
// pages from a page up, whole alignments below.
uint64_t block_bytes(uint64_t nbytes, uint64_t alignment) {
  const uint64_t unit = std::max(nbytes >= kPage ? kPage : uint64_t{1}, alignment);
  return (std::max<uint64_t>(nbytes, 1) + unit - 1) / unit * unit;
}

bool aligned(const void* p, uint64_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

}  // namespace

ScratchPool::~ScratchPool() {
  for (const Block& b : kept_) {
    KILN_UNPOISON(b.ptr, b.bytes);
    std::free(b.ptr);
  }
  // Live blocks belong to a kernel still running: a pool outlives its calls,
  // so there are none; were there, freeing them here would pull memory from
  // under it.
}

void* ScratchPool::allocate(uint64_t nbytes, uint64_t alignment) {
  alignment = std::max<uint64_t>(alignment, alignof(std::max_align_t));
  const uint64_t bytes = block_bytes(nbytes, alignment);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->bytes >= bytes && it->bytes <= 2 * bytes && aligned(it->ptr, alignment) &&
          (best == kept_.end() || it->bytes < best->bytes))
        best = it;
    if (best != kept_.end()) {
      Block b = *best;
      kept_.erase(best);
      kept_bytes_ -= b.bytes;
      live_.push_back(b);
      KILN_UNPOISON(b.ptr, b.bytes);
      return b.ptr;
    }
  }
  void* p = std::aligned_alloc(alignment, bytes);
  if (!p) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  ++system_allocations_;
  live_.push_back({p, bytes});
  return p;
}

void ScratchPool::release(void* ptr) {
  if (!ptr) return;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = std::find_if(live_.begin(), live_.end(), [&](const Block& b) { return b.ptr == ptr; });
  if (it == live_.end()) {
    std::fprintf(stderr, "kiln: scratch block %p freed that the pool did not hand out\n", ptr);
    std::abort();
  }
  const Block b = *it;
  live_.erase(it);
  if (kept_bytes_ + b.bytes > max_kept_bytes_) {
    lock.unlock();
    std::free(b.ptr);
    return;
  }
  kept_.push_back(b);
  kept_bytes_ += b.bytes;
  KILN_POISON(b.ptr, b.bytes);
}

uint64_t ScratchPool::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_bytes_;
}

int64_t ScratchPool::system_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return system_allocations_;
}

}  // namespace kiln
