// What a GPU kernel must hold before it is compiled, checked on the
// lowered IR so that a schedule that cannot run is a clear error (a
// candidate the tuner records as invalid), never a launch failure, a hang
// or a wrong result on the device:
//  - its block has at most the target's threads, per dimension and in all;
//    its grid at most the blocks per dimension;
//  - its shared buffers fit the target's shared memory per block, and each
//    thread's local buffers fit its registers (a larger local array spills
//    to memory, at a loss no schedule wants);
//  - every barrier is reached by all the block's threads: none under a
//    branch or in a loop whose bounds differ between threads;
//  - no barrier is missing between a shared buffer's writes and its reads
//    by other threads (tir/transform/insert_barriers.h);
//  - no loop is parallel (that is the CPU's thread pool).
#pragma once

#include "targets/codegen/gpu/gpu_program.h"
#include "targets/target.h"

namespace kiln {

// Throws kiln::Error naming the kernel, what is over or wrong, and the limit.
void verify_gpu(const GpuProgram& p, const GpuLimits& limits);

// Bytes of `scope` memory the allocations in `kernel` take (per block for
// shared, per thread for local); -1 when one has no constant size.
int64_t allocated_bytes(const Stmt& kernel, const std::string& scope);

}  // namespace kiln
