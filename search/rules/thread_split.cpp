#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/analysis/unclamp.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/error.h"
#include "tir/schedule/locate.h"

namespace kiln::search {

void order_thread_split(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!info.is_injective || info.block->annotations.count(kTiledAnn)) continue;
    if (info.block->annotations.count(kCoverRegionAnn)) continue;  // in another block's tiles
    // Chosen from the IR, so that a block left as it is records nothing.
    std::optional<Located> loc = locate_block(sch.func().body(), name);
    if (!loc) continue;
    const std::vector<Stmt> loops = enclosing_loops(*loc);
    if (loops.size() < 3) continue;  // the innermost loop stays: it is the one vectorized
    std::vector<Var> vars;
    for (const Stmt& l : loops) vars.push_back(l.as<ForNode>()->loop_var);
    const std::vector<int> bound = bound_iter_vars(sch.func(), name, vars);
    const std::vector<double> along = bytes_read_along(sch.func(), name);
    size_t best = 0;
    double best_bytes = -1;
    int64_t best_extent = 0;
    for (size_t i = 0; i + 1 < loops.size(); ++i) {
      const int64_t* e = as_const_int(loops[i].as<ForNode>()->extent);
      if (bound[i] < 0 || !e || *e < 2) continue;
      const double bytes = along[static_cast<size_t>(bound[i])];
      if (split_first(bytes, *e, best_bytes, best_extent)) {
        best = i;
        best_bytes = bytes;
        best_extent = *e;
      }
    }
    if (best == 0) continue;
    std::vector<LoopRV> rvs = sch.get_loops(sch.get_block(name));
    std::vector<LoopRV> order = {rvs[best]};
    order.insert(order.end(), rvs.begin(), rvs.begin() + static_cast<std::ptrdiff_t>(best));
    // Where the loops hold other statements beside this block's nest (a
    // packed copy's, beside its consumer), they stay as they are.
    apply_if_possible(sch, [&](Schedule& s) { s.reorder(order); });
  }
}

}  // namespace kiln::search
