#include "targets/lower.h"

#include <algorithm>

#include "targets/codegen/gpu/gpu_program.h"
#include "targets/codegen/gpu/verify_gpu.h"
#include "tir/schedule/auto_bind.h"

namespace kiln {

PrimFunc default_program(const PrimFunc& f, const Target& target) {
  if (!target.is_gpu()) return f;
  return default_gpu_program(f, std::min<int64_t>(kAutoBindThreads, target.gpu_limits().max_threads_per_block));
}

LowerOptions lower_options_for(const Target& target) {
  LowerOptions o;
  // A GPU thread loads and stores at most 128 bits at once: float4.
  o.max_lanes = target.is_gpu() ? 4 : target.vector_lanes(DataType::Float32());
  o.gpu = target.is_gpu();
  return o;
}

PrimFunc lower(const PrimFunc& f, const Target& target,
               const std::function<void(const std::string& pass, const PrimFunc& f)>& after_pass,
               int64_t max_code_size) {
  LowerOptions o = lower_options_for(target);
  o.after_pass = after_pass;
  o.max_code_size = max_code_size;
  PrimFunc lowered = lower(f, o);
  if (target.is_gpu()) verify_gpu(split_kernels(lowered), target.gpu_limits());
  return lowered;
}

}  // namespace kiln
