#include "search/block_info.h"
#include "search/rules/rules.h"

namespace kiln::search {

void auto_inline(Schedule& sch) {
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
    if (feeds_tiled) continue;
    try {
      sch.compute_inline(sch.get_block(name));
    } catch (const ScheduleError&) {
      // Not inlinable here (e.g. a predicate); it stays a block of its own.
    }
  }
}

}  // namespace kiln::search
