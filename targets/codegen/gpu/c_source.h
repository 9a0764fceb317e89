// GPU kernels as C source: one code generator, two dialects.
//
// CUDA C and OpenCL C are the same language where kernels live (C
// expressions and statements over pointers and arrays); they differ in the
// words around it: how a kernel and its memory are declared, how a thread
// finds its index, how the block waits, and the names of math functions.
// So one walk over the lowered IR writes both, and a Dialect supplies the
// words:
//
//                      CUDA                         OpenCL
//   kernel             extern "C" __global__        __kernel
//   block size         __launch_bounds__(256)       reqd_work_group_size(16, 16, 1)
//   argument           float* __restrict__ A        __global float* restrict A
//   shared buffer      __shared__ float S[512]      __local float S[512]
//   thread index       threadIdx.x                  (int)get_local_id(0)
//   barrier            __syncthreads()              barrier(CLK_LOCAL_MEM_FENCE)
//   math               expf(x), fmaxf(a, b)         exp(x), fmax(a, b)
//
// A loop bound to blockIdx or threadIdx becomes the thread's index (a
// const variable); vthread and unroll loops become loops with
// `#pragma unroll`; shared buffers are declared at the top of the kernel,
// local ones where they are allocated. Integer floor division becomes `/`
// where the loops' ranges prove both sides non-negative, else a helper
// that rounds down. A vector store (a loop the schedule vectorized, up to
// four lanes) is one vector copy where it copies contiguous float32
// (vload/vstore; CUDA's float4 where both addresses are provably aligned),
// else it is written lane by lane.
#pragma once

#include <string>

#include "targets/codegen/gpu/gpu_program.h"

namespace kiln {

enum class GpuDialect : uint8_t { kCuda, kOpencl };

// Every kernel of `p`, in one translation unit. Throws kiln::Error for a
// type the dialect cannot store (float16 for now) and reports IR outside
// the lowered form as an internal error.
std::string gpu_source(const GpuProgram& p, GpuDialect dialect);

}  // namespace kiln
