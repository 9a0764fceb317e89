// Vectorized loops to vector expressions.
//
// A loop of kind vectorized with constant extent E is replaced by vector code
// of at most `max_lanes` lanes: the loop variable becomes a Ramp, loads and
// stores indexed by it become vector accesses, everything that does not
// depend on it stays scalar and is broadcast where it meets a vector. When E
// is not a multiple of the lane count, the remainder runs as one narrower
// vector (the tail):
//
//   for j in T.vectorized(20):          for jo in range(1):
//     C[j] = A[j] + 1.0f          =>      C[T.Ramp(jo*16, 1, 16)] = A[T.Ramp(jo*16, 1, 16)] + T.Broadcast(1.0f, 16)
//                                       C[T.Ramp(16, 1, 4)] = A[T.Ramp(16, 1, 4)] + T.Broadcast(1.0f, 4)
//
// A body that cannot be expressed this way (a store whose index does not
// depend on the loop, a condition that does, a nested vector loop, an
// allocation) is kept as a serial loop: vectorize is a performance hint and
// never changes results.
#pragma once

#include "tir/stmt.h"

namespace kiln {

// Expects flattened buffers (one index per access).
PrimFunc vectorize_loops(const PrimFunc& f, int max_lanes);

}  // namespace kiln
