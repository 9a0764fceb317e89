#include "targets/runtime/opencl_module.h"

#include "core/error.h"

namespace kiln {

OpenclModule::OpenclModule(GpuModule m, OpenclDevice& device) : m_(std::move(m)) {
  if (m_.kind != "opencl") KILN_USER_ERROR() << "module " << m_.name << " is for " << m_.kind << ", not opencl";
  program_ = std::make_unique<OpenclProgram>(device, m_.source);
}

double OpenclModule::run(const std::vector<NDArray*>& args) {
  if (args.size() != m_.params.size())
    KILN_USER_ERROR() << m_.name << " takes " << m_.params.size() << " tensors, not " << args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelParam& p = m_.params[i];
    if (args[i]->dtype() != p.dtype || (p.numel >= 0 && args[i]->numel() != p.numel))
      KILN_USER_ERROR() << m_.name << ": argument " << i << " (" << p.name << ") must be " << p.dtype.str() << " of "
                        << p.numel << " elements, not " << args[i]->dtype().str() << " of " << args[i]->numel();
  }
  std::vector<OpenclLaunch> launches;
  for (const GpuModule::Kernel& k : m_.kernels) {
    OpenclLaunch l{k.name, {}, {}};
    for (size_t d = 0; d < 3; ++d) {
      l.local[d] = static_cast<size_t>(k.launch.block[d]);
      l.global[d] = static_cast<size_t>(k.launch.grid[d] * k.launch.block[d]);
    }
    launches.push_back(l);
  }
  std::vector<size_t> scratch(m_.scratch_bytes.begin(), m_.scratch_bytes.end());
  return program_->run(launches, args, scratch);
}

}  // namespace kiln
