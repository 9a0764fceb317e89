#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/analysis/unclamp.h"
#include "tir/schedule/attempt.h"

namespace kiln::search {
namespace {

// Whether block `b` stores a select whose other value is not zero: a
// padding with a value other than zero.
bool pads_with_nonzero(const BlockNode* b) {
  const auto* store = b->body.as<BufferStoreNode>();
  const auto* sel = store ? store->value.as<SelectNode>() : nullptr;
  return sel && !is_zero(sel->false_value);
}

}  // namespace

void compute_location(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!(info.is_injective || info.is_permuted_copy) || info.writes_param) continue;
    if (info.block->annotations.count(kCoverRegionAnn)) continue;  // placed by compute_in_tiles
    bool feeds_tiled = false, feeds_intrin = false;
    for (const std::string& u : consumers(sch.func(), name)) {
      const Annotations& ann = block_info(sch.func(), u).block->annotations;
      feeds_tiled = feeds_tiled || ann.count(kTiledAnn);
      feeds_intrin = feeds_intrin || ann.count(kTensorIntrinAnn);
    }
    if (!feeds_tiled) continue;
    // A block tiled for a tensor intrinsic reads its operands as the
    // intrinsic does: computed under its loops, a producer would break
    // its nest. A padding stage is inlined (its select of zero, outside
    // the intrinsic's loops, guards the nest: tir/tensor_intrin.h), which
    // saves a padded copy of the input per call; the operand's packed
    // copy stays at the root, and so does a padding of another value (a
    // quantized input padded with its zero point), which guards nothing.
    if (feeds_intrin) {
      if (info.is_permuted_copy || pads_with_nonzero(info.block)) continue;
      if (Attempt<Schedule> inlined = attempt(sch, [&](Schedule& s) { s.compute_inline(s.get_block(name)); }))
        sch = std::move(*inlined);
      continue;
    }
    BlockRV b = sch.get_block(name);
    sch.compute_at(b, sch.sample_compute_location(b));
  }
}

}  // namespace kiln::search
