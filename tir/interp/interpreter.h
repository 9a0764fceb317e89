// The reference interpreter: executes any PrimFunc on host buffers.
//
// It is the correctness oracle for everything else: every generated kernel is
// compared with it in tests, and the tuner compares candidates with it. So it
// favours obviously-right semantics over speed, while staying fast enough for
// the small shapes of the test suite and a 512^3 matmul check.
//
// It runs both forms of the IR:
//  - block form (create_prim_func, schedules): BlockRealize binds iter vars,
//    a block's init runs when every reduce iter var is at the start of its
//    domain, alloc_buffers live for the block's extent;
//  - lowered form (tir/transform): flattened buffers, Allocate, vector
//    expressions (Ramp, Broadcast), parallel/vectorized/unrolled loops (run
//    serially: they have the same meaning).
#pragma once

#include <cstdint>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

// A view of caller-owned memory: dense row-major, element type dtype.
struct HostBuffer {
  DataType dtype;
  std::vector<int64_t> shape;
  void* data = nullptr;
};

// Runs f with params[i] bound to args[i]. Throws kiln::Error when the
// arguments do not match the parameters (count, dtype, shape) and on
// out-of-bounds accesses, naming the buffer and the index.
void interpret(const PrimFunc& f, const std::vector<HostBuffer>& args);

}  // namespace kiln
