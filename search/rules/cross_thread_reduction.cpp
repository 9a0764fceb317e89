#include <algorithm>

#include "search/block_info.h"
#include "search/rules/reduction_nest.h"
#include "search/rules/rules.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/auto_bind.h"

namespace kiln::search {

// The block's reduction split between the threads of one block per
// output: each thread folds every threads-th element into a register,
// stores its partial result into shared memory, and after the barrier
// lowering places there, every thread folds the partial results (reading
// one address at a time, which shared memory broadcasts) and stores the
// one result, the same in every thread.
//
//   for i in blockIdx.x:                   # the spatial loops, fused
//     for t in threadIdx.x:                #   rf: B_rf_local = fold of A[i, k0 * T + t] over k0
//       ...; B_rf[t] = B_rf_local          #   (shared)
//     T.barrier("shared")
//     B_local = fold of B_rf[t] over t      # write-back, by every thread
//     B[i] = B_local
std::vector<Schedule> cross_thread_reduction(const Schedule& in, const std::string& block, const SpaceParams& p) {
  BlockInfo info = block_info(in.func(), block);
  if (!info.has_reduce || info.block->writes.size() != 1) return {in};
  if (info.has_spatial && info.has_data_reuse) return {in};  // multi-level tiling's
  Attempt<std::optional<Schedule>> split = attempt([&]() -> std::optional<Schedule> {
    Schedule sch = in;
    std::optional<ReductionNest> n = reduction_nest(sch, block);
    if (!n || n->reduce.empty() || n->work < kMinCrossThreadWork) return std::nullopt;
    LoopRV r = n->reduce.size() == 1 ? n->reduce[0] : sch.fuse(n->reduce);
    std::vector<ExprRV> f = sch.sample_perfect_tile(r, 2, std::min<int64_t>(kAutoBindThreads, p.max_threads));
    std::vector<LoopRV> pieces = sch.split(r, std::vector<Factor>(f.begin(), f.end()));
    const int last = static_cast<int>(info.block->writes[0].buffer().shape().size());
    BlockRV rf = sch.rfactor(pieces[1], last);
    sch.set_scope(rf, 0, "shared");
    BlockRV write_back = sch.get_block(block);

    std::vector<LoopRV> loops = sch.get_loops(rf);  // spatial..., k0, k1
    const size_t ns = n->spatial.size();
    LoopRV k0 = loops[ns], k1 = loops[ns + 1];
    sch.reorder({k1, k0});
    std::vector<LoopRV> spatial(loops.begin(), loops.begin() + static_cast<std::ptrdiff_t>(ns));
    std::optional<LoopRV> outer;
    if (!spatial.empty()) {
      outer = spatial.size() == 1 ? spatial[0] : sch.fuse(spatial);
      sch.bind(*outer, "blockIdx.x");
    }
    sch.bind(k1, "threadIdx.x");
    BlockRV partial = sch.cache_write(rf, 0, "local");
    sch.reverse_compute_at(partial, k1);
    if (outer) {
      BlockRV result = sch.cache_write(write_back, 0, "local");
      sch.reverse_compute_at(write_back, *outer);
      sch.reverse_compute_at(result, *outer);
    }
    return sch;
  });
  if (!split || !*split) return {in};
  return {in, std::move(**split)};
}

}  // namespace kiln::search
