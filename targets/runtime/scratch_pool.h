// Scratch memory that kernels ask for on every call, kept for the next one.
//
// What a kernel allocates that is too large for its stack (a convolution's
// padded input: 861 KB for resnet18's 56² layers) it asks the runtime for
// on every call, and frees when the call ends (kernel_abi.h). From malloc,
// blocks that large are mapped fresh, or handed back to the system when
// freed, often enough that `kiln run` of resnet18 took 39 460 page faults
// over its ~110 inferences; with freed blocks kept, 16 766 (most of them
// loading the weights). So a freed block is kept, and the next request it
// fits takes it: after its first call a model's kernels find their scratch
// mapped. TVM's workspace pool does the same. (The latency did not move
// measurably: 19.7-20.0 ms either way in six alternating pairs on an AMD
// EPYC Zen 4 VM, 2 threads.)
//
// A request takes the smallest kept block that holds it, is aligned for it
// and is at most twice its size (a small request must not take the block a
// large one will ask for next). Sizes are rounded up to whole pages, so that
// requests a few bytes apart share blocks. At most `max_kept_bytes` are kept;
// a block freed past that goes back to the system. Kept blocks are poisoned
// for AddressSanitizer, so a kernel that reads its scratch after freeing it
// is still caught.
//
// Thread-safe: kernels allocate from inside parallel tasks too.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace kiln {

class ScratchPool {
 public:
  static constexpr uint64_t kDefaultMaxKeptBytes = uint64_t{256} << 20;

  explicit ScratchPool(uint64_t max_kept_bytes = kDefaultMaxKeptBytes) : max_kept_bytes_(max_kept_bytes) {}
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // `nbytes` aligned to `alignment` (a power of two); nullptr when the
  // system has no memory left.
  void* allocate(uint64_t nbytes, uint64_t alignment);
  // Takes back a block `allocate` returned; nullptr is ignored. Anything
  // else is memory corruption: the process aborts, naming it.
  void release(void* ptr);

  uint64_t kept_bytes() const;
  // Blocks taken from the system so far (not from the kept ones).
  int64_t system_allocations() const;

 private:
  struct Block {
    void* ptr;
    uint64_t bytes;
  };

  const uint64_t max_kept_bytes_;
  mutable std::mutex mu_;
  std::vector<Block> kept_;
  std::vector<Block> live_;
  uint64_t kept_bytes_ = 0;
  int64_t system_allocations_ = 0;
};

}  // namespace kiln
