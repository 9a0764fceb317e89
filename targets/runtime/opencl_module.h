// A GPU module (targets/codegen/gpu/build_gpu.h) built for the OpenCL
// device and run over host tensors: the program is built once, then each
// run copies the tensors in, launches every kernel in order and copies
// them back.
//
//   OpenclModule m(build_gpu_module(lower(f, t), t));
//   double seconds = m.run({&A, &B, &C});
#pragma once

#include <memory>
#include <vector>

#include "targets/codegen/gpu/build_gpu.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/opencl.h"

namespace kiln {

class OpenclModule {
 public:
  // Throws kiln::Error when the module is not OpenCL's or does not build.
  explicit OpenclModule(GpuModule m, OpenclDevice& device = OpenclDevice::get());
  const GpuModule& module() const { return m_; }

  // Runs every kernel once. Returns their time on the device's clock, in
  // seconds. Throws kiln::Error when an argument's type or size is not its
  // parameter's, or a launch fails.
  double run(const std::vector<NDArray*>& args);

 private:
  GpuModule m_;
  std::unique_ptr<OpenclProgram> program_;
};

}  // namespace kiln
