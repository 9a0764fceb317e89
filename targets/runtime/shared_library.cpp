#include "targets/runtime/shared_library.h"

#include <dlfcn.h>

#include "core/error.h"

namespace kiln {

std::unique_ptr<CompiledKernel> load_shared_library(const std::string& path, const std::string& name) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    KILN_USER_ERROR() << "cannot load kernel library " << path << ": " << (err ? err : "unknown error");
  }
  std::shared_ptr<void> owner(handle, [](void* h) { dlclose(h); });
  void* fn = dlsym(handle, name.c_str());
  const auto* sig = static_cast<const char*>(dlsym(handle, (name + "__kiln_signature").c_str()));
  if (!fn || !sig) KILN_USER_ERROR() << "kernel library " << path << " has no kiln kernel named '" << name << "'";
  return std::make_unique<CompiledKernel>(name, reinterpret_cast<KilnKernelFn>(fn),
                                          CompiledKernel::parse_signature(sig), std::move(owner));
}

}  // namespace kiln
