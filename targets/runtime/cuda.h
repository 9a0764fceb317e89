// The CUDA driver API, the runtime of the cuda target. libcuda is never
// linked: it is opened with dlopen when a CUDA device is first asked for,
// so kiln builds and runs on machines without a GPU (where asking says so,
// as an error). A GPU module (targets/codegen/gpu/build_gpu.h) is compiled
// with NVRTC for the device's arch, loaded as PTX, and run over host
// tensors, timed with CUDA events.
//
//   CudaDevice& dev = CudaDevice::get();         // kiln::Error without a GPU
//   CudaModule m(build_gpu_module(lower(f, dev.target()), dev.target()));
//   double seconds = m.run({&A, &B, &C});
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "targets/codegen/gpu/build_gpu.h"
#include "targets/runtime/ndarray.h"
#include "targets/target.h"

namespace kiln {

class CudaDevice {
 public:
  // Device 0, opened once. Throws kiln::Error when libcuda cannot be
  // opened or finds no device.
  static CudaDevice& get();

  // "NVIDIA H100 80GB HBM3".
  const std::string& name() const { return name_; }
  // "cuda -arch=sm_90": the target its compute capability makes.
  const Target& target() const { return target_; }

  struct Api;
  Api& api() const { return *api_; }
  // Makes the device's context current on the calling thread.
  void make_current() const;

 private:
  CudaDevice();
  std::unique_ptr<Api> api_;
  std::string name_;
  Target target_;
};

class CudaModule {
 public:
  // Compiles with NVRTC for the device's arch and loads the PTX. Throws
  // kiln::Error when the module is not CUDA's, or does not compile or load.
  explicit CudaModule(GpuModule m, CudaDevice& device = CudaDevice::get());
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  const GpuModule& module() const { return m_; }

  // Copies the tensors in, runs every kernel once, copies them back.
  // Returns the kernels' time on the device, in seconds. A fault (an
  // illegal address) or a failed launch is a kiln::Error naming the kernel.
  double run(const std::vector<NDArray*>& args);

 private:
  GpuModule m_;
  CudaDevice& device_;
  struct Handle;
  std::unique_ptr<Handle> h_;
};

}  // namespace kiln
