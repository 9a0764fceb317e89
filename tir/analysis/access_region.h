// Which part of each buffer a piece of IR reads and writes.
//
// Blocks record their reads and writes so that schedules can reason about
// dependences and footprints without re-reading bodies: compute_at needs the
// region of a producer that one consumer iteration touches, cache_read the
// region to copy. Those questions are asked about one execution of a block,
// so a block's regions are written in terms of its own iter vars, as in
// TensorIR: the matmul block
//
//   C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
//
// reads A[vi:vi+1, vk:vk+1] and B[vk:vk+1, vj:vj+1] and writes C[vi:vi+1, vj:vj+1].
// Loops inside the analysed code range over their whole extent, and any
// variable the caller names as relaxed ranges over its domain (pass a block's
// iter vars to get the footprint of all its executions).
//
// Bounds come from interval arithmetic on affine forms (sums of constant
// multiples of fixed variables or fixed subexpressions): +, -, * by a
// constant, / and % by a positive constant, min, max, select and integer
// casts. A dimension whose index cannot be bounded that way, or whose
// accesses cannot be ordered against each other, covers the whole dimension.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

// (reads, writes), each buffer once, in order of first access.
using AccessRegions = std::pair<std::vector<BufferRegion>, std::vector<BufferRegion>>;

// Every region `stmt` reads and writes. Variables of `relaxed` range over
// their domains; loops and lets inside `stmt` range over their values;
// other variables are held fixed. A buffer both read and written appears in
// both lists (the update of a reduction reads its accumulator). A nested
// BlockRealize contributes its block's recorded regions, with the block's
// iter vars bound to the realize's values; the buffers it allocates do not
// appear. With `only`, the regions of that buffer alone, for a fraction of
// the cost (a legality check that asks about one buffer).
AccessRegions detect_access_regions(const Stmt& stmt, const std::vector<IterVar>& relaxed = {},
                                    const Buffer* only = nullptr);

// The reads and writes a Block records (TensorIR's convention): the regions
// of one execution of the block, its iter vars held fixed, leaving out the
// buffers it allocates. A block with an init does not list the buffers it
// writes among its reads: reading the accumulator is implied by the init.
// Without an init (e.g. the update block that decompose_reduction leaves),
// the accumulator is an ordinary read and is listed.
AccessRegions block_access_regions(const Stmt& block);

// The regions of one buffer under every loop of a nest, from one walk.
// compute_at asks, for each loop of the consumers' nest, whether the part of
// the buffer one iteration reads has a constant size; asking
// detect_access_regions per loop walks and bounds the same accesses once
// per loop. Here each access is bounded once with every loop variable held
// fixed (an affine form in them), and the region under a loop relaxes the
// loops inside it by substitution, which is what interval arithmetic on an
// affine index gives.
//
// The walk understands loops with constant bounds, sequences and blocks
// (known, as in detect_access_regions, by their recorded regions). An index
// that is not affine in the loops inside the asked one (a division of a
// fused loop, say), or a nest with anything else in it, is a question this
// cannot answer: it says so, and the caller asks detect_access_regions.
class NestRegions {
 public:
  // The accesses of `buf` under `root`: its reads, or with `writes` its writes.
  NestRegions(const Stmt& root, const Buffer& buf, bool writes);
  ~NestRegions();
  NestRegions(NestRegions&&) noexcept;
  NestRegions& operator=(NestRegions&&) noexcept;

  // The extent of each dimension of the region one iteration of `loop` (a
  // loop under root) touches, when they are all constants; nullopt when the
  // walk cannot tell, or no access is under the loop.
  std::optional<std::vector<int64_t>> constant_extents(const ForNode* loop) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
