#include <cmath>

#include "search/block_info.h"
#include "search/rules/rules.h"

namespace kiln::search {

void parallel_vectorize_unroll(Schedule& sch, const SpaceParams& p) {
  BlockRV root = sch.get_block(root_block(sch.func()));
  sch.annotate(root, kParallelAnn, AnnValue(p.max_parallel_extent));
  sch.annotate(root, kVectorizeAnn, AnnValue(p.max_vectorize_extent));
  std::vector<double> probs(p.unroll_steps.size(), 1.0 / static_cast<double>(p.unroll_steps.size()));
  sch.annotate(root, kUnrollAnn, sch.sample_categorical(p.unroll_steps, probs));
}

}  // namespace kiln::search
