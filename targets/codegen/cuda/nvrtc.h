// From CUDA C source to PTX without a GPU: NVRTC compiles (linked from the
// CUDA toolkit in /usr/local/cuda; only the driver, libcuda, is ever loaded
// at run time), and ptxas, run as a process, assembles the PTX for an arch
// to check it, as the driver would before a launch. The cuda code generator
// writes the source; on machines without a GPU this is how its kernels are
// checked (docs/targets.md).
#pragma once

#include <string>

namespace kiln {

// PTX for `arch` ("sm_90"). Throws kiln::Error with NVRTC's log, naming
// `name` (the source's file name in messages).
std::string compile_cuda_to_ptx(const std::string& source, const std::string& arch,
                                const std::string& name = "kernel.cu");

// What ptxas says of `ptx` for `arch`: "" when it assembles, else its
// messages. Throws kiln::Error when ptxas cannot be run. The ptxas used is
// $KILN_PTXAS, else the CUDA toolkit's.
std::string ptxas_errors(const std::string& ptx, const std::string& arch);

}  // namespace kiln
