#include "search/block_info.h"
#include "search/rules/rules.h"

namespace kiln::search {

void compute_location(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!(info.is_injective || info.is_permuted_copy) || info.writes_param) continue;
    bool feeds_tiled = false, feeds_intrin = false;
    for (const std::string& u : consumers(sch.func(), name)) {
      const Annotations& ann = block_info(sch.func(), u).block->annotations;
      feeds_tiled = feeds_tiled || ann.count(kTiledAnn);
      feeds_intrin = feeds_intrin || ann.count(kTensorIntrinAnn);
    }
    // A block tiled for a tensor intrinsic keeps its operands plain loads:
    // inlined (the padding's select around each byte) or computed under
    // the intrinsic's own loops, they would no longer be its nest. Such a
    // producer runs whole, at the root.
    if (!feeds_tiled || feeds_intrin) continue;
    BlockRV b = sch.get_block(name);
    sch.compute_at(b, sch.sample_compute_location(b));
  }
}

}  // namespace kiln::search
