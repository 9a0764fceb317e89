// A lowered function for a GPU target, as the host needs it: the kernels'
// source in the target's dialect and how to launch each. The source is
// what `kiln print --source` shows; OpenCL builds it at load time (PoCL on
// these machines), CUDA through NVRTC (targets/codegen/cuda/nvrtc.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "targets/codegen/gpu/c_source.h"
#include "targets/codegen/gpu/gpu_program.h"
#include "targets/runtime/compiled_kernel.h"
#include "targets/target.h"

namespace kiln {

struct GpuModule {
  std::string kind;  // "cuda" or "opencl"
  std::string name;  // the function's
  std::string source;
  struct Kernel {
    std::string name;
    LaunchDims launch;
  };
  std::vector<Kernel> kernels;       // in launch order
  std::vector<KernelParam> params;   // the function's tensors, in calling order
  std::vector<int64_t> scratch_bytes;  // device-only intermediates, after the params
};

// The module as JSON, the data of a "gpu_module" artifact (targets/build.h),
// and back. parse_gpu_module throws kiln::Error naming what is malformed.
std::string gpu_module_json(const GpuModule& m);
GpuModule parse_gpu_module(const std::string& json);

// Splits into kernels and writes the source. `lowered` is lower()'s output
// for `target` (targets/lower.h), which verify_gpu.h has already checked
// against the target's limits. Throws kiln::Error for a function that
// cannot be cut into kernels.
GpuModule build_gpu_module(const PrimFunc& lowered, const Target& target);

}  // namespace kiln
