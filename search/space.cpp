#include "search/space.h"

#include "search/block_info.h"
#include "search/rules/rules.h"

namespace kiln::search {

std::vector<Trace> design_space(const PrimFunc& f, const SpaceParams& p) {
  Schedule base(f);
  auto_inline(base);
  std::vector<Schedule> states = {base};
  for (const std::string& block : blocks_in_order(base.func())) {
    std::vector<Schedule> next;
    for (const Schedule& s : states)
      for (const Schedule& r : add_rfactor(s, block, p))
        for (Schedule& t : multi_level_tiling(r, block, p)) next.push_back(std::move(t));
    states = std::move(next);
  }
  std::vector<Trace> out;
  for (Schedule& s : states) {
    order_thread_split(s);
    compute_location(s);
    parallel_vectorize_unroll(s, p);
    out.push_back(s.trace());
  }
  return out;
}

}  // namespace kiln::search
