#include "targets/runtime/loaded_kernel.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "targets/runtime/shared_library.h"
// The run worker cross-built for another CPU (rpc/cross/) has no GPU
// runtime: it loads shared libraries only.
#if !KILN_CPU_RUNTIME_ONLY
#include "core/file.h"
#include "targets/codegen/gpu/build_gpu.h"
#include "targets/runtime/cuda.h"
#include "targets/runtime/opencl_module.h"
#endif

namespace kiln {
namespace {

class CpuKernel final : public LoadedKernel {
 public:
  explicit CpuKernel(std::unique_ptr<CompiledKernel> k) : k_(std::move(k)) {}
  void run(std::vector<NDArray>& args, ThreadPool& pool) override { run_kernel(*k_, args, pool); }
  Timing measure(std::vector<NDArray>& args, ThreadPool& pool, const TimingOptions& options) override {
    return measure_kernel(*k_, args, pool, options);
  }

 private:
  std::unique_ptr<CompiledKernel> k_;
};

#if !KILN_CPU_RUNTIME_ONLY
// Runs larger than this many per repeat are not worth the wait.
constexpr int kMaxNumber = 1000;

// A GPU module on its device: Module is OpenclModule or CudaModule, each
// run returning the kernels' time on the device's clock.
template <typename Module>
class DeviceKernel final : public LoadedKernel {
 public:
  explicit DeviceKernel(GpuModule m) : m_(std::move(m)) {}
  void run(std::vector<NDArray>& args, ThreadPool&) override { once(args); }

  Timing measure(std::vector<NDArray>& args, ThreadPool&, const TimingOptions& o) override {
    double first = 0;
    for (int i = 0; i < std::max(1, o.warmup); ++i) first = once(args);
    Timing t;
    t.number = std::max(1, o.number);
    if (o.min_repeat_ms > 0 && first > 0)
      t.number = std::clamp(static_cast<int>(std::ceil(o.min_repeat_ms * 1e-3 / first)), t.number, kMaxNumber);
    for (int r = 0; r < o.repeat; ++r) {
      double secs = 0;
      for (int i = 0; i < t.number; ++i) secs += once(args);
      t.ms_per_run.push_back(secs * 1e3 / t.number);
    }
    return t;
  }

 private:
  double once(std::vector<NDArray>& args) {
    std::vector<NDArray*> ptrs;
    for (NDArray& a : args) ptrs.push_back(&a);
    return m_.run(ptrs);
  }
  Module m_;
};
#endif

}  // namespace

std::unique_ptr<LoadedKernel> load_kernel_file(const std::string& format, const std::string& path,
                                               const std::string& kernel_name) {
  if (format.empty() || format == "shared_library")
    return std::make_unique<CpuKernel>(load_shared_library(path, kernel_name));
  if (format == "gpu_module") {
#if KILN_CPU_RUNTIME_ONLY
    KILN_USER_ERROR() << "artifact " << path << " is a GPU module; this runner's worker runs CPU kernels only";
#else
    GpuModule m = parse_gpu_module(read_file(path));
    if (m.kind == "opencl") return std::make_unique<DeviceKernel<OpenclModule>>(std::move(m));
    return std::make_unique<DeviceKernel<CudaModule>>(std::move(m));
#endif
  }
  KILN_USER_ERROR() << "artifact " << path << " has format '" << format << "', which this runner does not load";
}

}  // namespace kiln
