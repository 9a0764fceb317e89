// The GPU design space, for real: candidates drawn from its sketches (and
// the default program, every nest auto-bound) run on the OpenCL device
// (PoCL here) against the reference interpreter, and their CUDA source
// passes NVRTC and ptxas for sm_80 and sm_90. A draw that asks for more
// threads than the target has is a GpuThreadsError the search skips; the
// test draws until it has its candidates.
#include <gtest/gtest.h>

#include <map>

#include "ops/workload.h"
#include "search/postproc.h"
#include "search/sample.h"
#include "search/space.h"
#include "support/gpu_check.h"
#include "targets/lower.h"
#include "targets/runtime/opencl.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

SpaceParams gpu() { return SpaceParams::for_target(Target::parse("opencl")); }

void expect_candidates_correct(const std::string& w, int wanted) {
  PrimFunc f = workload(w);
  std::vector<Trace> sketches = design_space(f, gpu());
  ASSERT_FALSE(sketches.empty());
  for (size_t s = 0; s < sketches.size(); ++s) {
    int got = 0;
    std::string last_failure;
    for (uint64_t seed = 1; seed <= 64 && got < wanted; ++seed) {
      SampleFailure why;
      std::optional<Candidate> c = sample_candidate(f, sketches[s], seed, &why);
      if (!c) {
        last_failure = std::string(why.name()) + ": " + why.message;
        continue;
      }
      ++got;
      testing::expect_gpu_matches_interpreter(f, c->func, w + ", sketch " + std::to_string(s) + ", seed " +
                                                              std::to_string(seed) + ":\n" + c->trace.str());
    }
    EXPECT_EQ(got, wanted) << w << " sketch " << s << ": too few valid draws; the last failed: " << last_failure;
  }
}

TEST(GpuSpace, MatmulTilesIntoBlocksThreadsAndSharedMemory) {
  std::vector<Trace> sketches = design_space(workload("matmul:M=32,N=32,K=16"), gpu());
  ASSERT_EQ(sketches.size(), 1u);
  const std::string t = sketches[0].str();
  for (const char* want : {"blockIdx.x", "vthread", "threadIdx.x", "\"shared\"", "\"local\"", "kiln.cooperative_fetch"})
    EXPECT_NE(t.find(want), std::string::npos) << want << " missing from:\n" << t;
}

TEST(GpuCandidates, Matmul) { expect_candidates_correct("matmul:M=32,N=48,K=16", 2); }
TEST(GpuCandidates, BatchMatmul) { expect_candidates_correct("batch_matmul:B=2,M=8,N=16,K=8", 1); }
TEST(GpuCandidates, Conv2dWithItsPaddingInlinedIntoOneKernel) {
  const std::string w = "conv2d_nchw:N=1,C=4,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1";
  expect_candidates_correct(w, 1);
  // The padding is read where the input is copied into shared memory: no
  // padded tensor, one kernel.
  PrimFunc f = workload(w);
  std::optional<Candidate> c;
  for (uint64_t seed = 1; !c && seed < 64; ++seed) c = sample_candidate(f, design_space(f, gpu())[0], seed);
  ASSERT_TRUE(c);
  GpuModule m = testing::gpu_module(c->func, "opencl");
  EXPECT_EQ(m.kernels.size(), 1u) << m.source;
  EXPECT_TRUE(m.scratch_bytes.empty()) << m.source;
}
TEST(GpuCandidates, DenseWithItsEpilogueInTheWriteBack) {
  expect_candidates_correct("dense:M=16,N=32,K=16,bias=1,act=relu", 1);
}
TEST(GpuCandidates, SoftmaxWithReductionsAcrossThreads) {
  // Two reductions (the row maximum and the sum), each either across the
  // threads of a block or by each thread alone: four sketches.
  std::vector<Trace> sketches = design_space(workload("softmax:M=4,N=64"), gpu());
  EXPECT_EQ(sketches.size(), 4u);
  int across = 0;
  for (const Trace& t : sketches) across += t.str().find("rfactor") != std::string::npos;
  EXPECT_EQ(across, 3);
  expect_candidates_correct("softmax:M=4,N=64", 1);
}
TEST(GpuCandidates, LayerNorm) { expect_candidates_correct("layer_norm:M=3,N=40", 1); }
TEST(GpuCandidates, ASumOfLongRows) { expect_candidates_correct("reduce_sum:M=2,N=4096", 1); }

TEST(GpuSpace, DrawsOverTheBlocksThreadsOrSharedMemoryAreRefusedBeforeTheyAreBuilt) {
  // 2 KiB of shared memory and 8 threads: many draws ask for more.
  Target small = Target::parse("opencl -max-threads-per-block=8 -max-shared-memory-per-block=2048");
  PrimFunc f = workload("matmul:M=64,N=64,K=64");
  std::vector<Trace> sketches = design_space(f, SpaceParams::for_target(small));
  std::map<ScheduleErrorKind, int> failures;
  int built = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SampleFailure why;
    std::optional<Candidate> c = sample_candidate(f, sketches[0], seed, &why);
    if (!c) {
      if (why.kind) ++failures[*why.kind];
      continue;
    }
    // What postprocessing let through fits the target.
    EXPECT_NO_THROW(build_gpu_module(lower(c->func, small), small)) << c->trace.str();
    ++built;
  }
  EXPECT_GT(failures[ScheduleErrorKind::kGpuSharedMemory], 0);
  EXPECT_GT(failures[ScheduleErrorKind::kGpuThreads], 0);
  EXPECT_GT(built, 0);
}

TEST(GpuDefaultProgram, EveryNestBoundRunsAsItsOwnKernel) {
  PrimFunc f = workload("softmax:M=4,N=32");
  Target t = Target::parse("opencl");
  GpuModule m = testing::gpu_module(default_program(f, t), "opencl");
  EXPECT_GE(m.kernels.size(), 3u) << m.source;
  EXPECT_FALSE(m.scratch_bytes.empty()) << "softmax's intermediates live in device memory between kernels";
  testing::expect_gpu_matches_interpreter(f, default_program(f, t), "softmax, default program");
}

}  // namespace
}  // namespace kiln::search
