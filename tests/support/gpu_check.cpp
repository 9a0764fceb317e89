#include "support/gpu_check.h"

#include <gtest/gtest.h>

#include "targets/codegen/cuda/nvrtc.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "targets/runtime/opencl_module.h"
#include "tir/printer.h"

namespace kiln::testing {

GpuModule gpu_module(const PrimFunc& scheduled, const std::string& target) {
  Target t = target == "opencl" ? OpenclDevice::get().target() : Target::parse(target);
  return build_gpu_module(lower(scheduled, t), t);
}

void expect_gpu_matches_interpreter(const PrimFunc& original, const PrimFunc& scheduled, const std::string& what) {
  const std::vector<NDArray> inputs = make_arguments(original, 3);
  const NDArray want = reference_outputs(original, inputs).back().copy();
  const double tol = check_tolerance(original);
  // The schedule itself, one thread at a time.
  EXPECT_LE(max_relative_error(reference_outputs(scheduled, inputs).back(), want), tol)
      << what << ": interpreter, scheduled:\n" << scheduled;

  OpenclModule m(gpu_module(scheduled, "opencl"));
  std::vector<NDArray> args = make_arguments(original, 3);
  std::vector<NDArray*> ptrs;
  for (NDArray& a : args) ptrs.push_back(&a);
  m.run(ptrs);
  EXPECT_LE(max_relative_error(args.back(), want), tol) << what << ": OpenCL, source:\n" << m.module().source;

  for (const char* arch : {"sm_80", "sm_90"}) {
    GpuModule cuda = gpu_module(scheduled, std::string("cuda -arch=") + arch);
    const std::string ptx = compile_cuda_to_ptx(cuda.source, arch, cuda.name + ".cu");
    EXPECT_EQ(ptxas_errors(ptx, arch), "") << what << " for " << arch << ", source:\n" << cuda.source;
  }
}

}  // namespace kiln::testing
