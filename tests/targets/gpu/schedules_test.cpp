// GPU schedules, run for real: each hand schedule of examples/schedules for
// GPUs, on shapes its tiles divide and shapes they do not, runs on the
// OpenCL device (PoCL here) against the reference interpreter, and its
// CUDA source compiles with NVRTC and assembles with ptxas for sm_80 and
// sm_90.
#include <gtest/gtest.h>

#include <sstream>

#include "support/example_schedules.h"
#include "support/gpu_check.h"
#include "targets/runtime/opencl.h"

namespace kiln {
namespace {

using testing::ExampleSchedule;

const ExampleSchedule kExamples[] = {
    {"matmul_gpu.json", "matmul:M=128,N=64,K=32"},
    {"matmul_gpu.json", "matmul:M=50,N=70,K=30"},
    {"conv2d_nchw_gpu.json", "conv2d_nchw:N=1,C=8,H=8,W=16,K=32,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_gpu.json", "conv2d_nchw:N=1,C=5,H=9,W=17,K=12,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_gpu.json", "conv2d_nchw:N=2,C=3,H=7,W=11,K=8,R=3,S=3,stride=2,pad=1"},
};

class GpuExampleSchedules : public ::testing::TestWithParam<ExampleSchedule> {};

TEST_P(GpuExampleSchedules, MatchInterpreter) {
  const ExampleSchedule& e = GetParam();
  std::ostringstream what;
  what << e;
  OpProgram p = testing::prepare_example(e, OpenclDevice::get().target());
  testing::expect_gpu_matches_interpreter(p.func, p.scheduled, what.str());
}

INSTANTIATE_TEST_SUITE_P(All, GpuExampleSchedules, ::testing::ValuesIn(kExamples));

}  // namespace
}  // namespace kiln
