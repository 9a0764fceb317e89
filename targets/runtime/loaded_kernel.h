// A kernel a runner's worker loaded from an artifact file, whatever runs
// it: the CPU (a shared library in kiln's ABI, timed on the steady clock)
// or an OpenCL device (a GPU module built by the driver, timed on the
// device's clock). The worker runs, checks and times both alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_pool.h"
#include "targets/runtime/timing.h"

namespace kiln {

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  // Runs once over `args` (one per parameter). Throws kiln::Error when the
  // kernel fails or an argument does not fit its parameter.
  virtual void run(std::vector<NDArray>& args, ThreadPool& pool) = 0;
  // Times as measure_kernel does (timing.h); a GPU's runs are timed on its
  // own clock, so cache flushing (a CPU's concern) does not apply.
  virtual Timing measure(std::vector<NDArray>& args, ThreadPool& pool, const TimingOptions& options) = 0;
};

// The artifact at `path` of `format` ("shared_library", or "" for it;
// "gpu_module"). Throws kiln::Error naming what cannot be loaded.
std::unique_ptr<LoadedKernel> load_kernel_file(const std::string& format, const std::string& path,
                                               const std::string& kernel_name);

}  // namespace kiln
