#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/schedule/attempt.h"

namespace kiln::search {

namespace {

// Inlines every injective block that is not an output, those that feed a
// tiled block too when `into_tiled`.
void inline_injective(Schedule& sch, bool into_tiled) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!info.is_injective || info.writes_param) continue;
    std::vector<std::string> users = consumers(sch.func(), name);
    if (users.empty()) continue;
    bool feeds_tiled = false;
    for (const std::string& u : users) {
      BlockInfo c = block_info(sch.func(), u);
      feeds_tiled = feeds_tiled || (c.has_reduce && c.has_data_reuse);
    }
    if (feeds_tiled && !into_tiled) continue;
    // Not inlinable here (e.g. a predicate): it stays a block of its own.
    const BlockRV b = sch.get_block(name);
    apply_if_possible(sch, [&](Schedule& s) { s.compute_inline(b); });
  }
}

}  // namespace

void auto_inline(Schedule& sch) { inline_injective(sch, false); }

void inline_producers_of_tiled(Schedule& sch) { inline_injective(sch, true); }

}  // namespace kiln::search
