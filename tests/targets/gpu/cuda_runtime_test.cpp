// The CUDA runtime: on a machine with a GPU, the hand matmul schedule runs
// on it and matches the interpreter; on one without, asking for the device
// is an error that says there is no driver (or device), never a crash, and
// kiln itself started without libcuda.
#include <gtest/gtest.h>

#include "support/example_schedules.h"
#include "support/gpu_check.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "targets/runtime/cuda.h"

namespace kiln {
namespace {

std::string cuda_error() {
  try {
    CudaDevice::get();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CudaRuntime, WithoutADeviceAskingForOneSaysWhy) {
  const std::string err = cuda_error();
  if (err.empty()) GTEST_SKIP() << "this machine has a CUDA device: " << CudaDevice::get().name();
  EXPECT_TRUE(err.find("no driver") != std::string::npos || err.find("finds no device") != std::string::npos) << err;
}

TEST(CudaRuntime, TheHandMatmulScheduleRunsOnTheDevice) {
  if (const std::string err = cuda_error(); !err.empty()) GTEST_SKIP() << err;
  CudaDevice& dev = CudaDevice::get();
  OpProgram p = testing::prepare_example("matmul_gpu.json", "matmul:M=200,N=130,K=70", dev.target());
  CudaModule m(build_gpu_module(p.lowered, dev.target()));
  std::vector<NDArray> args = make_arguments(p.func, 3);
  const NDArray want = reference_outputs(p.func, args).back().copy();
  std::vector<NDArray*> ptrs;
  for (NDArray& a : args) ptrs.push_back(&a);
  EXPECT_GT(m.run(ptrs), 0);
  EXPECT_LE(max_relative_error(args.back(), want), check_tolerance(p.func));
}

}  // namespace
}  // namespace kiln
