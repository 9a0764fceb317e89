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

// Whether `target` is a CPU target of another triple than this machine's:
// its kernels do not run in this process, but in a runner for that device
// (a local one started with --device-target: `kiln tune-op`, `bench-op`).
bool is_foreign(const Target& target);

// Whether a runner on this machine measures `device` under emulation: an
// AArch64 CPU, whose kernels run in that CPU's worker under qemu-user. Such
// a runner proves the protocol, the artifacts and the correctness checks;
// its timings say nothing about the device's speed. (WebAssembly is not
// emulated: its kernels run in V8, at the speed they run at here.)
bool is_emulated(const Target& device);

// The run worker's command line for `device`: `kiln worker --role=run` for
// this machine's own CPU; for another CPU, that CPU's worker cross-built
// beside kiln (bin/kiln-worker-<triple>, rpc/cross/) under qemu-user,
// emulating a CPU with the device's features and vector length. Throws
// kiln::Error naming what is missing (the worker, qemu).
std::vector<std::string> run_worker_argv(const Target& device, const std::string& kiln);

// The Info reply of a runner on `device` (normally Target::host(), or a
// narrower target given with `kiln runner --device-target`).
DeviceInfo describe_device(const Target& device, const std::string& device_key,
                           const std::vector<GpuDevice>& gpus = {});

}  // namespace kiln::rpc
