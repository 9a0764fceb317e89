#include "search/space_params.h"

#include "tir/tensor_intrin.h"

namespace kiln::search {

SpaceParams SpaceParams::for_target(const Target& t) {
  SpaceParams p;
  p.cores = std::max(1, t.num_cores());
  p.lanes = std::max(1, t.vector_lanes(DataType::Float32()));
  p.registers = t.is_cpu() ? t.vector_registers() : 16;
  p.max_parallel_extent = kJobsPerCore * p.cores;
  if (t.is_cpu())
    for (const TensorIntrin& intrin : kiln::tensor_intrins())
      if (available_with(intrin, [&](const std::string& f) { return t.has_feature(f); }))
        p.tensor_intrins.push_back(intrin.name);
  if (t.is_gpu()) {
    // Nothing runs in the CPU's thread pool or its vectors: threads are the
    // parallelism, and each is scalar.
    p.max_threads = t.gpu_limits().max_threads_per_block;
    p.max_shared_bytes = t.gpu_limits().max_shared_memory_per_block;
    p.max_parallel_extent = 0;
    p.max_vectorize_extent = 0;
    p.unroll_steps = {0, 16, 64, 512, 1024};
  }
  return p;
}

}  // namespace kiln::search
