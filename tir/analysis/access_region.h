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

}  // namespace kiln
