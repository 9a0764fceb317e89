// The C code generator's two dialects on the hand matmul schedule: the same
// kernel in the words of each, its block size declared, its barriers, and
// its vectorized cooperative fetch as vector copies (CUDA's float4 only
// where the addresses are provably aligned).
#include <gtest/gtest.h>

#include "support/example_schedules.h"
#include "support/gpu_check.h"
#include "targets/runtime/opencl_module.h"
#include "tir/parser/parser.h"

namespace kiln {
namespace {

std::string source(const std::string& workload, const std::string& target) {
  Target t = Target::parse(target);
  return build_gpu_module(testing::prepare_example("matmul_gpu.json", workload, t).lowered, t).source;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(GpuSource, OneKernelInTheWordsOfEachDialect) {
  const std::string cuda = source("matmul:M=128,N=128,K=64", "cuda -arch=sm_80");
  EXPECT_NE(cuda.find("extern \"C\" __global__ void __launch_bounds__(256) matmul_kernel0(float* __restrict__ A, "
                      "float* __restrict__ B, float* __restrict__ C)"),
            std::string::npos)
      << cuda;
  EXPECT_NE(cuda.find("__shared__ __align__(16) float A_shared[1024];"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("const int i0_1_i1_1_fused = (int)threadIdx.x;"), std::string::npos) << cuda;
  EXPECT_EQ(count(cuda, "__syncthreads();"), 2) << "after the fetch and before the next:\n" << cuda;
  EXPECT_EQ(count(cuda, "*(float4*)("), 2) << cuda;

  const std::string cl = source("matmul:M=128,N=128,K=64", "opencl");
  EXPECT_NE(cl.find("__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void matmul_kernel0(__global float* "
                    "restrict A, __global float* restrict B, __global float* restrict C)"),
            std::string::npos)
      << cl;
  EXPECT_NE(cl.find("__local float A_shared[1024] __attribute__((aligned(16)));"), std::string::npos) << cl;
  EXPECT_NE(cl.find("const int i0_1_i1_1_fused = (int)get_local_id(0);"), std::string::npos) << cl;
  EXPECT_EQ(count(cl, "barrier(CLK_LOCAL_MEM_FENCE);"), 2) << cl;
  EXPECT_EQ(count(cl, "vstore4(vload4(0, "), 2) << cl;
}

TEST(GpuSource, AFetchThatTheShapeDoesNotDivideCopiesElementByElement) {
  // 30 columns of K: the tile's edge is guarded, so the copy is scalar.
  const std::string cuda = source("matmul:M=50,N=70,K=30", "cuda -arch=sm_80");
  EXPECT_EQ(count(cuda, "float4"), 0) << cuda;
  EXPECT_NE(cuda.find("if ("), std::string::npos) << cuda;
}

TEST(GpuSource, AVectorComputationIsWrittenLaneByLaneAndRuns) {
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        C[T.Ramp(tx * 4, 1, 4)] = A[T.Ramp(tx * 4, 1, 4)] * T.Broadcast(T.float32(2), 4) + B[T.Ramp(63 - tx * 4, -1, 4)]
)");
  Target t = Target::parse("opencl");
  GpuModule m = build_gpu_module(f, t);
  EXPECT_NE(m.source.find("C[(tx * 4) + 3] = ((A[(tx * 4) + 3] * 2.0f) + B[60 - (tx * 4)]);"),
            std::string::npos)
      << m.source;
  NDArray a(DataType::Float32(), {64}), b(DataType::Float32(), {64}), c(DataType::Float32(), {64});
  a.fill_random(1);
  b.fill_random(2);
  OpenclModule(m).run({&a, &b, &c});
  for (int64_t i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(c.get(i), 2 * a.get(i) + b.get(63 - i)) << i;
}

}  // namespace
}  // namespace kiln
