#include "rpc/runner/device.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/paths.h"
#include "core/version.h"
#include "targets/codegen/llvm/cpu_info.h"
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

namespace {

// qemu-user's -cpu for an AArch64 device: every extension qemu has
// ("max"), SVE at the device's vector length, or no SVE at all for a NEON
// device, so that an SVE instruction in its kernels is an illegal
// instruction, as on the device.
std::string qemu_aarch64_cpu(const Target& device) {
  if (!device.has_feature("sve")) return "max,sve=off";
  if (device.vscale() == 0) return "max";
  return "max,sve-default-vector-length=" + std::to_string(16 * device.vscale());
}

// What runs `device`'s kernels, for Info and the records: the CPU, or
// qemu emulating an AArch64 one on it, or Node.js on it.
std::string device_cpu_model(const Target& device) {
  if (is_emulated(device)) return "qemu-aarch64 -cpu " + qemu_aarch64_cpu(device) + ", emulated on " + cpu_model_name();
  if (device.is_cpu() && llvm_backend::is_wasm(device.mtriple())) return "WebAssembly in Node.js on " + cpu_model_name();
  return cpu_model_name();
}

}  // namespace

bool is_foreign(const Target& target) {
  return target.is_cpu() && target.mtriple() != llvm_backend::process_triple();
}

bool is_emulated(const Target& device) { return is_foreign(device) && llvm_backend::is_aarch64(device.mtriple()); }

std::vector<std::string> run_worker_argv(const Target& device, const std::string& kiln) {
  // WebAssembly modules run in this machine's worker, which hands them to
  // Node.js (rpc/worker/wasm_kernel.h).
  if (!is_foreign(device) || llvm_backend::is_wasm(device.mtriple())) return {kiln, "worker", "--role=run"};
  if (!is_emulated(device))
    KILN_USER_ERROR() << "no runner for " << device.mtriple() << " on this " << llvm_backend::process_triple()
                      << " machine (kiln runs aarch64-linux-gnu under qemu, and wasm32 in Node.js)";
  const std::string worker = (std::filesystem::path(kiln).parent_path() / "kiln-worker-aarch64-linux-gnu").string();
  if (access(worker.c_str(), X_OK) != 0)
    KILN_USER_ERROR() << "the aarch64 run worker " << worker
                      << " is missing: build kiln with -DKILN_CROSS_WORKERS=ON (scripts/setup does)";
  const std::string qemu = find_on_path("qemu-aarch64");
  if (qemu.empty()) KILN_USER_ERROR() << "qemu-aarch64 is not on PATH: install Debian's qemu-user (scripts/setup does)";
  return {qemu, "-cpu", qemu_aarch64_cpu(device), worker, "--role=run"};
}

DeviceInfo describe_device(const Target& device, const std::string& device_key, const std::vector<GpuDevice>& gpus) {
  DeviceInfo d;
  d.kiln_version = kiln_version();
  d.device_key = device_key;
  d.cpu_model = device_cpu_model(device);
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
