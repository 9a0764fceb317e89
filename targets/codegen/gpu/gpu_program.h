// A lowered function for a GPU, cut into the kernels the host launches.
//
// On a GPU the host runs the function's top level, and each nest whose
// outer loops are bound to blockIdx or threadIdx is a kernel, launched over
// as many blocks and threads as those loops' extents. Inside a kernel a
// bound loop is no loop: its variable is the thread's own index, and loops
// bound to the same axis (a compute nest and the cooperative fetch inside
// it) all read that one index, so they must have one extent.
//
//   allocate T_max (global)             temps: T_max (device memory)
//   for b in blockIdx.x(64):            kernel 0: grid (64), block (32)
//     for t in threadIdx.x(32): ...
//   for b in blockIdx.x(128):       ->  kernel 1: grid (128), block (1)
//     ...
//
// Global buffers the function allocates become device memory the host
// allocates once, before the first kernel; every kernel takes the
// function's parameters then these, in that order, so that each launch
// passes the same list.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

struct LaunchDims {
  std::array<int64_t, 3> grid{1, 1, 1};   // blocks along blockIdx.x/y/z
  std::array<int64_t, 3> block{1, 1, 1};  // threads along threadIdx.x/y/z
  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
};

struct GpuKernel {
  std::string name;  // "<function>_kernel<i>"
  Stmt body;         // bound loops still in place
  LaunchDims launch;
};

struct GpuProgram {
  std::string name;
  std::vector<Buffer> params;  // the function's, in calling order
  std::vector<Buffer> temps;   // global intermediates
  std::vector<GpuKernel> kernels;
  // params then temps: every kernel's arguments.
  std::vector<Buffer> kernel_args() const;
};

// Throws kiln::Error for a statement outside any blockIdx/threadIdx loop
// (the host would have to run it), a global buffer allocated inside a
// kernel, an axis bound to loops of different extents, or an extent that is
// not a constant.
GpuProgram split_kernels(const PrimFunc& lowered);

}  // namespace kiln
