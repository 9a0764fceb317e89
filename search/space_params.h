// The parameters the target gives the schedule rules and postprocessors:
// the same rules make a different space on an AVX2 and an AVX-512 CPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "targets/target.h"

namespace kiln::search {

// Jobs per core in the parallel extent the rules annotate: the cores are
// the annotation divided by this (postprocessing reads only the annotation).
inline constexpr int64_t kJobsPerCore = 16;

struct SpaceParams {
  int cores = 1;
  int lanes = 8;       // float32 lanes of the widest vector register
  int registers = 16;  // vector registers: 16 ymm (AVX2) or 32 zmm (AVX-512)
  // Parallel loops are fused up to this extent: cores x kJobsPerCore,
  // enough to balance uneven tiles without drowning in task overhead.
  int64_t max_parallel_extent = kJobsPerCore;
  // The innermost loop is vectorized when its extent is at most this.
  int64_t max_vectorize_extent = 64;
  // The largest innermost tile sample_perfect_tile may draw.
  int64_t max_innermost_factor = 64;
  // A GPU target's threads per block; 0 on a CPU. The GPU space tiles
  // "SSSRRSRS" (rules.h) and binds every nest to blocks of threads.
  int64_t max_threads = 0;
  int64_t max_shared_bytes = 0;  // a GPU's shared memory per block
  bool gpu() const { return max_threads > 0; }
  // The tensor intrinsics (tir/tensor_intrin.h) the target has, in their
  // registration order, which is best first.
  std::vector<std::string> tensor_intrins;
  // Auto-unroll steps to choose from (pragma_auto_unroll_max_step).
  std::vector<int64_t> unroll_steps = {0, 16, 64, 512};

  // The registers a register tile may keep its accumulators in: all but a
  // few, which hold the operands (6x16 floats in 12 of AVX2's 16 ymm, as
  // BLIS's Haswell kernel; up to 28 of AVX-512's 32 zmm).
  int accumulator_registers() const { return registers - 4; }

  static SpaceParams for_target(const Target& t);
};

}  // namespace kiln::search
