#include "search/block_info.h"
#include "search/rules/rules.h"

namespace kiln::search {

void compute_location(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!(info.is_injective || info.is_permuted_copy) || info.writes_param) continue;
    bool feeds_tiled = false;
    for (const std::string& u : consumers(sch.func(), name))
      feeds_tiled = feeds_tiled || block_info(sch.func(), u).block->annotations.count(kTiledAnn);
    if (!feeds_tiled) continue;
    BlockRV b = sch.get_block(name);
    sch.compute_at(b, sch.sample_compute_location(b));
  }
}

}  // namespace kiln::search
