// OpenCL through the ICD loader (libOpenCL), the runtime of the opencl
// target: a device, a program built from OpenCL C source, and a kernel run
// over host tensors. On these machines the device is PoCL's, which runs
// OpenCL on the CPU, so every kernel the opencl code generator makes runs
// for real in the tests; on a machine with a GPU and its ICD, the GPU's.
//
//   OpenclDevice& dev = OpenclDevice::get();
//   OpenclProgram p(dev, source);                  // kiln::Error with the build log
//   p.run("add", {&a, &b, &c}, {64, 1, 1}, {16, 1, 1});
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "targets/runtime/ndarray.h"
#include "targets/target.h"

namespace kiln {

class OpenclDevice {
 public:
  // The first device of the first platform that has one, opened once.
  // Throws kiln::Error when the loader finds no platform or device ("is an
  // OpenCL driver such as pocl-opencl-icd installed?").
  static OpenclDevice& get();
  ~OpenclDevice();

  // "Portable Computing Language: pthread-skylake-avx512-AMD EPYC".
  const std::string& name() const { return name_; }
  // The opencl target string with this device's limits.
  Target target() const;

  struct Handles;
  Handles& handles() const { return *h_; }

 private:
  OpenclDevice();
  std::unique_ptr<Handles> h_;
  std::string name_;
  size_t max_work_group_ = 0;
  uint64_t local_mem_ = 0;
};

// One kernel launch: `global` work-items in work-groups of `local`.
struct OpenclLaunch {
  std::string kernel;
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{1, 1, 1};
};

class OpenclProgram {
 public:
  // Builds `source`. Throws kiln::Error with the compiler's log.
  OpenclProgram(OpenclDevice& device, const std::string& source);
  ~OpenclProgram();
  OpenclProgram(const OpenclProgram&) = delete;
  OpenclProgram& operator=(const OpenclProgram&) = delete;

  // Runs kernel `name` with one buffer argument per tensor, in order: each
  // copied to the device, the kernel run over `global` work-items in
  // work-groups of `local`, then every tensor copied back. Returns the
  // kernel's time on the device's clock, in seconds. Throws kiln::Error
  // naming the kernel and OpenCL's error.
  double run(const std::string& name, const std::vector<NDArray*>& args, std::array<size_t, 3> global,
             std::array<size_t, 3> local);

  // Runs `launches` in order, each over the same arguments: the tensors
  // (copied to the device before the first, back after the last), then one
  // device buffer of each size in `scratch_bytes` (intermediates no host
  // reads). Returns the launches' summed time on the device's clock.
  double run(const std::vector<OpenclLaunch>& launches, const std::vector<NDArray*>& args,
             const std::vector<size_t>& scratch_bytes = {});

 private:
  OpenclDevice& device_;
  struct Handle;
  std::unique_ptr<Handle> h_;
};

}  // namespace kiln
