#include "search/space_params.h"

namespace kiln::search {

SpaceParams SpaceParams::for_target(const Target& t) {
  SpaceParams p;
  p.cores = std::max(1, t.num_cores());
  p.lanes = std::max(1, t.vector_lanes(DataType::Float32()));
  p.registers = t.has_feature("avx512f") ? 32 : 16;
  p.max_parallel_extent = kJobsPerCore * p.cores;
  return p;
}

}  // namespace kiln::search
