// Blocks to plain loops: the first lowering step.
//
// A BlockRealize becomes its block's body with the iter vars replaced by the
// iter_values, guarded by the predicate. A block's init runs when every reduce
// iter var is at the start of its domain, so it becomes an `if` in front of the
// update:
//
//   with block("C"):                      if vk == 0:          # k == 0
//     vi, vk = spatial(i), reduce(k)  =>      C[i] = 0
//     with init(): C[vi] = 0              C[i] = C[i] + A[i, k]
//     C[vi] = C[vi] + A[vi, vk]
//
// alloc_buffers become Allocate statements around the block's body.
#pragma once

#include "tir/stmt.h"

namespace kiln {

PrimFunc lower_blocks(const PrimFunc& f);

}  // namespace kiln
