// verify_gpu: kernels that cannot run on the target are errors that say
// what is over which limit, or where a barrier is missing or divergent.
#include <gtest/gtest.h>

#include "support/error_of.h"
#include "targets/codegen/gpu/gpu_program.h"
#include "targets/codegen/gpu/verify_gpu.h"
#include "tir/parser/parser.h"

namespace kiln {
namespace {

using testing::error_of;

std::string verify_error(const std::string& text, const std::string& target = "cuda -arch=sm_80") {
  return error_of([&] { verify_gpu(split_kernels(parse_prim_func(text)), Target::parse(target).gpu_limits()); });
}

void expect_error(const std::string& text, const std::string& want, const std::string& target = "cuda -arch=sm_80") {
  const std::string got = verify_error(text, target);
  EXPECT_NE(got.find(want), std::string::npos) << "error: " << got << "\nexpected it to contain: " << want;
}

TEST(VerifyGpu, AKernelWithinTheLimitsPasses) {
  EXPECT_EQ(verify_error(R"(@T.prim_func
def f(A: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    for bx in T.thread_binding(8, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S = T.allocate((128,), "float32", scope="shared")
            S[tx] = A[bx * 128 + tx]
            T.barrier("shared")
            C[bx * 128 + tx] = S[127 - tx]
)"),
            "(no error)");
}

TEST(VerifyGpu, AMissingBarrierIsNamedWithItsBufferAndStatement) {
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        S[tx] = A[tx]
        C[tx] = S[15 - tx]
)",
               "kernel f_kernel0: shared buffer S is written by some threads and accessed by others with no barrier "
               "before `C[tx] = S[15 - tx]`");
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((256,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        for k0 in range(16):
            S[tx] = A[k0 * 16 + tx]
            T.barrier("shared")
            C[tx] = C[tx] + S[15 - tx]
)",
               "shared buffer S is accessed by one iteration of `for k0 in range(16):` and overwritten or read by the "
               "next with no barrier between");
}

TEST(VerifyGpu, ABarrierOnlySomeThreadsReachIsRejected) {
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        if tx < 8:
            S[tx] = A[tx]
            T.barrier("shared")
            C[tx] = S[7 - tx]
)",
               "a barrier is under `if tx < 8`, which differs between threads");
  // A condition every thread of the block agrees on is fine.
  EXPECT_EQ(verify_error(R"(@T.prim_func
def f(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            S = T.allocate((16,), "float32", scope="shared")
            if bx < 3:
                S[tx] = A[bx * 16 + tx]
                T.barrier("shared")
                C[bx * 16 + tx] = S[15 - tx]
)"),
            "(no error)");
}

TEST(VerifyGpu, OverTheTargetsLimitsIsAnErrorNamingTheLimit) {
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((2048,), "float32")):
    for tx in T.thread_binding(2048, thread="threadIdx.x"):
        A[tx] = T.float32(0)
)",
               "threadIdx.x has extent 2048, over the target's 1024");
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((2048,), "float32")):
    for ty in T.thread_binding(32, thread="threadIdx.y"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            A[ty * 64 + tx] = T.float32(0)
)",
               "has 2048 threads per block (64 x 32 x 1), over the target's 1024");
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((16384,), "float32")):
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        S = T.allocate((16384,), "float32", scope="shared")
        for i in range(128):
            S[i * 128 + tx] = A[i * 128 + tx]
        T.barrier("shared")
        for i in range(128):
            A[i * 128 + tx] = S[16383 - i * 128 - tx]
)",
               "uses 65536 bytes of shared memory per block, over the target's 49152");
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((2048,), "float32")):
    for tx in T.thread_binding(1, thread="threadIdx.x"):
        L = T.allocate((2048,), "float32", scope="local")
        for i in range(2048):
            L[i] = A[i]
        for i in range(2048):
            A[i] = L[2047 - i]
)",
               "keeps 8192 bytes of local buffers per thread, over the 255 registers");
  // OpenCL's limits are the device's, given in the target.
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((512,), "float32")):
    for tx in T.thread_binding(512, thread="threadIdx.x"):
        A[tx] = T.float32(0)
)",
               "threadIdx.x has extent 512, over the target's 256", "opencl");
}

TEST(VerifyGpu, WhatTheHostWouldHaveToRunIsRejected) {
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in range(16):
        A[i] = T.float32(0)
)",
               "`for i in range(16):` is not inside a loop bound to blockIdx or threadIdx");
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        A[tx] = T.float32(0)
        for t2 in T.thread_binding(16, thread="threadIdx.x"):
            A[32 + t2] = T.float32(1)
)",
               "threadIdx.x is bound to loops of extents 32 and 16");
  expect_error(R"(@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        for i in T.parallel(2):
            A[i * 32 + tx] = T.float32(0)
)",
               "loop i is parallel");
}

}  // namespace
}  // namespace kiln
