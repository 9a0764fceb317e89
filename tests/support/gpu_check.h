// The check every test of a GPU schedule makes, on a machine without a GPU:
// the scheduled program, lowered for opencl, runs on the OpenCL device
// (PoCL here) and gives the reference interpreter's output on the same
// seeded inputs; lowered for cuda, its source compiles with NVRTC and its
// PTX assembles with ptxas for sm_80 and sm_90.
#pragma once

#include <string>

#include "targets/codegen/gpu/build_gpu.h"
#include "tir/stmt.h"

namespace kiln::testing {

// `what` names the program in failure messages.
void expect_gpu_matches_interpreter(const PrimFunc& original, const PrimFunc& scheduled, const std::string& what);

// The module `scheduled` lowers to for `target` ("cuda -arch=sm_80", "opencl").
GpuModule gpu_module(const PrimFunc& scheduled, const std::string& target);

}  // namespace kiln::testing
