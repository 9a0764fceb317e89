#include "targets/runtime/compiled_kernel.h"

#include <charconv>

#include "core/error.h"

namespace kiln {

CompiledKernel::CompiledKernel(std::string name, KilnKernelFn fn, std::vector<KernelParam> params,
                               std::shared_ptr<void> owner)
    : name_(std::move(name)), fn_(fn), params_(std::move(params)), owner_(std::move(owner)) {
  KILN_ICHECK(fn_) << "kernel " << name_ << " without code";
}

int32_t CompiledKernel::call(const std::vector<void*>& args, ThreadPool& pool) const {
  if (args.size() != params_.size())
    KILN_USER_ERROR() << "kernel " << name_ << " takes " << params_.size() << " arguments, got " << args.size();
  KilnRuntimeApi api = runtime_api_for(pool);
  return fn_(args.data(), &api);
}

int32_t CompiledKernel::call_arrays(const std::vector<NDArray*>& args, ThreadPool& pool) const {
  if (args.size() != params_.size())
    KILN_USER_ERROR() << "kernel " << name_ << " takes " << params_.size() << " arguments, got " << args.size();
  std::vector<void*> ptrs;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelParam& p = params_[i];
    KILN_ICHECK(args[i]) << "null array for argument " << i << " of " << name_;
    if (args[i]->dtype() != p.dtype)
      KILN_USER_ERROR() << "argument " << i << " (" << p.name << ") of " << name_ << " has type "
                        << args[i]->dtype().str() << ", expected " << p.dtype.str();
    if (p.numel >= 0 && args[i]->numel() < p.numel)
      KILN_USER_ERROR() << "argument " << i << " (" << p.name << ") of " << name_ << " has " << args[i]->numel()
                        << " elements, expected " << p.numel;
    ptrs.push_back(args[i]->data());
  }
  return call(ptrs, pool);
}

std::vector<KernelParam> CompiledKernel::parse_signature(const std::string& s) {
  std::vector<KernelParam> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(';', start);
    if (end == std::string::npos) end = s.size();
    std::string item = s.substr(start, end - start);
    size_t c1 = item.find(':');
    size_t c2 = c1 == std::string::npos ? c1 : item.find(':', c1 + 1);
    if (c2 == std::string::npos) KILN_USER_ERROR() << "malformed kernel signature entry '" << item << "'";
    KernelParam p;
    p.name = item.substr(0, c1);
    p.dtype = DataType::parse(item.substr(c1 + 1, c2 - c1 - 1));
    std::string n = item.substr(c2 + 1);
    auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), p.numel);
    if (ec != std::errc() || ptr != n.data() + n.size())
      KILN_USER_ERROR() << "malformed element count in kernel signature entry '" << item << "'";
    out.push_back(std::move(p));
    start = end + 1;
  }
  return out;
}

}  // namespace kiln
