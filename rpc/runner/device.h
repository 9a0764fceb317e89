// The device a runner measures on: what it reports in Info, and the target
// whose features decide which artifacts it accepts.
#pragma once

#include <string>

#include "rpc/measure.h"
#include "targets/target.h"

namespace kiln::rpc {

// A device besides the CPU that the runner measures GPU artifacts on.
struct GpuDevice {
  std::string name;  // "Portable Computing Language: pthread-..."
  Target target;     // its kind and limits: what artifacts it accepts
};

// The CUDA device when the driver finds one, and the OpenCL device when the
// loader finds one (PoCL on a machine without a GPU).
std::vector<GpuDevice> detect_gpus();

// "AMD EPYC 9R14 96-Core Processor", from /proc/cpuinfo; "unknown" elsewhere.
std::string cpu_model_name();

// The Info reply of a runner on `device` (normally Target::host(), or a
// narrower target given with `kiln runner --device-target`).
DeviceInfo describe_device(const Target& device, const std::string& device_key,
                           const std::vector<GpuDevice>& gpus = {});

}  // namespace kiln::rpc
