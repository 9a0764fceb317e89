#include "targets/codegen/gpu/build_gpu.h"

#include "core/error.h"
#include "targets/codegen/gpu/verify_gpu.h"

namespace kiln {
namespace {

int64_t constant_numel(const Buffer& b) {
  int64_t n = 1;
  for (const Expr& e : b.shape()) {
    const int64_t* c = as_const_int(e);
    if (!c) return -1;
    n *= *c;
  }
  return n;
}

}  // namespace

GpuModule build_gpu_module(const PrimFunc& lowered, const Target& target) {
  KILN_ICHECK(target.is_gpu()) << "build_gpu_module for target " << target.str();
  const GpuProgram p = split_kernels(lowered);
  verify_gpu(p, target.gpu_limits());
  GpuModule m;
  m.kind = target.kind();
  m.name = p.name;
  m.source = gpu_source(p, target.kind() == "cuda" ? GpuDialect::kCuda : GpuDialect::kOpencl);
  for (const GpuKernel& k : p.kernels) m.kernels.push_back({k.name, k.launch});
  for (const Buffer& b : p.params) m.params.push_back(KernelParam{b.name(), b.dtype(), constant_numel(b)});
  for (const Buffer& b : p.temps) {
    const int64_t n = constant_numel(b);
    if (n < 0) KILN_USER_ERROR() << "intermediate buffer " << b.name() << " of " << p.name << " has no constant size";
    m.scratch_bytes.push_back(n * b.dtype().bytes());
  }
  return m;
}

}  // namespace kiln
