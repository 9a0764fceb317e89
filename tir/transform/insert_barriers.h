// Barriers between the phases of a GPU kernel that share memory.
//
// The threads of a block run the kernel's body each on its own, so a value
// one thread stores into a "shared" buffer may be read by another only
// after a barrier both have passed; and a buffer read by one thread may be
// overwritten by another only after a barrier too. The cooperative fetch of
// a tiled matmul is the common case: every thread stores part of the tile,
// then every thread reads all of it, then the next tile overwrites it.
//
//   for k0 in range(64):                     for k0 in range(64):
//     A_shared[tx] = A[...]                    A_shared[tx] = A[...]
//     for k1 in range(16):           ->        T.barrier("shared")
//       C_local[0] += A_shared[k1] * ...       for k1 in range(16):
//                                                C_local[0] += A_shared[k1] * ...
//                                              T.barrier("shared")
//
// The analysis is by buffer, not by element: a write of a shared buffer
// conflicts with any later read of it by the block, and a read with any
// later write, unless a barrier comes between (a thread rereading only its own elements gets a
// barrier it did not need, never a missing one). Within a sequence a
// barrier goes in front of the first statement that conflicts with what
// came since the last one; a loop whose next iteration would conflict with
// the last gets one at the end of its body. Statements the block runs as
// one (loops bound to blockIdx and threadIdx are the thread's own index,
// not a loop) have nothing to separate.
//
// Where a barrier lands inside a branch only some threads take, the kernel
// would hang: the GPU verifier (targets/codegen/gpu/verify_gpu.h) rejects it.
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace kiln {

// A place without the barrier it needs.
struct MissingBarrier {
  // The statement that must wait for it, or the loop whose iterations it
  // must separate (end_of_loop).
  Stmt stmt;
  bool end_of_loop = false;
  Buffer buffer;  // the shared buffer accessed on both sides
};

// Every such place in `body`, in program order (with the barriers each
// earlier one would need taken as placed).
std::vector<MissingBarrier> missing_barriers(const Stmt& body);

// `f` with a barrier at each of those places.
PrimFunc insert_barriers(const PrimFunc& f);

}  // namespace kiln
