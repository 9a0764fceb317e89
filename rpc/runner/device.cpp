#include "rpc/runner/device.h"

#include <fstream>

#include "core/error.h"
#include "core/version.h"
#include "targets/runtime/cuda.h"
#include "targets/runtime/opencl.h"

namespace kiln::rpc {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

std::vector<GpuDevice> detect_gpus() {
  std::vector<GpuDevice> out;
  try {
    CudaDevice& d = CudaDevice::get();
    out.push_back({d.name(), d.target()});
  } catch (const Error&) {
    // No CUDA driver or device.
  }
  try {
    OpenclDevice& d = OpenclDevice::get();
    out.push_back({d.name(), d.target()});
  } catch (const Error&) {
    // No OpenCL platform or device: the runner measures on the CPU only.
  }
  return out;
}

DeviceInfo describe_device(const Target& device, const std::string& device_key, const std::vector<GpuDevice>& gpus) {
  DeviceInfo d;
  d.kiln_version = kiln_version();
  d.device_key = device_key;
  d.cpu_model = cpu_model_name();
  d.cpu_name = device.is_cpu() ? device.mcpu() : device.arch();
  d.isa_features = device.isa_features();
  d.num_cores = device.num_cores();
  d.targets = {device.str()};
  for (const GpuDevice& g : gpus) {
    d.gpus.push_back(g.name);
    d.targets.push_back(g.target.str());
  }
  return d;
}

}  // namespace kiln::rpc
