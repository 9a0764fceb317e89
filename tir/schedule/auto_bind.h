// Binds to GPU threads the loop nests a schedule left unbound, as
// MetaSchedule's AutoBind: each nest's leading data-parallel loops fused
// and split into blocks of `threads` threads.
//
//   for i, j in T.grid(64, 100):           for ij_0 in T.thread_binding(25, thread="blockIdx.x"):
//     with block("relu"): ...        ->      for ij_1 in T.thread_binding(256, thread="threadIdx.x"):
//                                              with block("relu"):  # where ij_0 * 256 + ij_1 < 6400
//
// It is the program a GPU target runs when nothing else schedules it (the
// default program the tuner measures first and checks candidates
// against), and the search's rule for the injective stages a tiling rule
// leaves alone. A nest whose loops are all reductions (a sum to one value)
// is left alone: lowering then says that it is not bound.
#pragma once

#include "tir/schedule/schedule.h"

namespace kiln {

// Threads per block of the default program, MetaSchedule's default too;
// the GPU space's threads of a block-wide reduction go up to it.
inline constexpr int64_t kAutoBindThreads = 256;

// `threads` per block, fewer where a nest has fewer iterations.
void auto_bind(Schedule& sch, int64_t threads);

// f with auto_bind applied: the default program of a GPU target.
PrimFunc default_gpu_program(const PrimFunc& f, int64_t threads);

}  // namespace kiln
