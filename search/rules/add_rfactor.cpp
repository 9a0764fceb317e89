#include "search/block_info.h"
#include "search/rules/reduction_nest.h"
#include "search/rules/rules.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/locate.h"

namespace kiln::search {

std::vector<Schedule> add_rfactor(const Schedule& in, const std::string& block, const SpaceParams& p) {
  BlockInfo info = block_info(in.func(), block);
  if (!info.has_reduce || info.block->writes.size() != 1) return {in};
  Schedule sch = in;
  Attempt<std::optional<ReductionNest>> nest = attempt([&] { return reduction_nest(sch, block); });
  if (!nest || !*nest) return {in};
  const ReductionNest& n = **nest;
  if (n.reduce.empty() || n.work <= 1) return {in};
  // A block that multi-level tiling takes needs the reduction's parallelism
  // only when its own spatial loops are too few to feed the cores (and
  // shorter than the reduction); any other reduction may gain a vector or
  // a parallel loop from it, once it is longer than the cores are many.
  const bool tiled = info.has_spatial && info.has_data_reuse;
  if (tiled ? (n.space >= n.work || n.space > p.max_parallel_extent) : n.work <= p.cores) return {in};

  Attempt<std::vector<LoopRV>> pieces = attempt([&] {
    LoopRV fused = n.reduce.size() == 1 ? n.reduce[0] : sch.fuse(n.reduce);
    std::vector<ExprRV> factors = sch.sample_perfect_tile(fused, 2, p.max_innermost_factor);
    return sch.split(fused, std::vector<Factor>(factors.begin(), factors.end()));
  });
  if (!pieces) return {in};
  const int last = static_cast<int>(info.block->writes[0].buffer().shape().size());
  std::vector<Schedule> out = {in};
  for (LoopRV piece : *pieces) {
    // Not factorable over this piece: the others stand.
    Attempt<Schedule> t = attempt(sch, [&](Schedule& s) {
      BlockRV rf = s.rfactor(piece, last);
      s.compute_at(rf, s.sample_compute_location(rf));
    });
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

}  // namespace kiln::search
