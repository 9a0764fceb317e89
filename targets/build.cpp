#include "targets/build.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/file.h"
#include "targets/codegen/gpu/build_gpu.h"
#include "targets/codegen/llvm/build_llvm.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/runtime/arguments.h"

namespace kiln {
namespace {

constexpr const char* kSharedLibrary = "shared_library";
constexpr const char* kGpuModule = "gpu_module";
constexpr const char* kWasmModule = "wasm_module";

// A CPU target's artifact: a shared library, or for WebAssembly a module
// (the same kernels and signatures, loaded by a JavaScript runtime).
const char* cpu_format(const Target& target) {
  return llvm_backend::is_wasm(target.mtriple()) ? kWasmModule : kSharedLibrary;
}

// A file name no other call in this process (or another process) uses.
std::string unique_path(const std::filesystem::path& dir, const std::string& stem) {
  static std::atomic<uint64_t> counter{0};
  return (dir / (stem + "." + std::to_string(getpid()) + "." + std::to_string(counter++) + ".so")).string();
}

void require_cpu(const Target& target) {
  if (!target.is_cpu())
    KILN_USER_ERROR() << "target '" << target.str() << "' does not run in this process: its kernels go to the "
                      << target.kind() << " device as a GPU module (build_artifact, kiln print --source)";
}

// Removes a file when it goes out of scope.
struct RemoveFile {
  std::string path;
  ~RemoveFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

}  // namespace

std::unique_ptr<CompiledKernel> build(const PrimFunc& lowered, const Target& target) {
  require_cpu(target);
  return build_llvm(lowered, target);
}

Artifact build_artifact(const PrimFunc& lowered, const Target& target) {
  if (target.is_gpu())
    return Artifact{kGpuModule, gpu_module_json(build_gpu_module(lowered, target)), lowered->name, target.str()};
  require_cpu(target);
  RemoveFile tmp{unique_path(std::filesystem::temp_directory_path(), "kiln-artifact")};
  export_shared_library(lowered, target, tmp.path);
  return Artifact{cpu_format(target), read_file(tmp.path), lowered->name, target.str()};
}

Artifact build_artifact(const PrimFunc& lowered, const std::vector<Prepack>& lowered_packs, const Target& target) {
  if (lowered_packs.empty()) return build_artifact(lowered, target);
  require_cpu(target);
  std::vector<PrimFunc> kernels{lowered};
  std::vector<ArtifactPrepack> prepacks;
  for (const Prepack& p : lowered_packs) {
    kernels.push_back(p.func);
    prepacks.push_back({static_cast<int>(p.param), p.func->name, arg_specs(p.func).at(1)});
  }
  RemoveFile tmp{unique_path(std::filesystem::temp_directory_path(), "kiln-artifact")};
  export_shared_library(kernels, target, tmp.path, 1);
  return Artifact{cpu_format(target), read_file(tmp.path), lowered->name, target.str(), prepacks};
}

std::unique_ptr<CompiledKernel> load_artifact(const Artifact& a, const std::string& dir) {
  if (a.format != kSharedLibrary)
    KILN_USER_ERROR() << "artifact of kernel '" << a.kernel_name << "' has format '" << a.format
                      << "'; this runtime loads only " << kSharedLibrary;
  RemoveFile file{unique_path(dir, "kiln-kernel")};
  {
    std::ofstream out(file.path, std::ios::binary);
    out.write(a.data.data(), static_cast<std::streamsize>(a.data.size()));
    if (!out) KILN_USER_ERROR() << "cannot write " << file.path;
  }
  // The loaded mapping outlives the file, which is removed right away.
  return load_shared_library(file.path, a.kernel_name);
}

}  // namespace kiln
