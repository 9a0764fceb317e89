#include "search/rules/reduction_nest.h"

#include "search/block_info.h"

namespace kiln::search {

std::optional<ReductionNest> reduction_nest(Schedule& sch, const std::string& block) {
  ReductionNest n;
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block(block));
  std::vector<Var> vars;
  for (LoopRV l : loops) vars.push_back(sch.loop_var(l));
  std::vector<LoopRole> roles = loop_roles(sch.func(), block, vars);
  for (size_t i = 0; i < loops.size(); ++i) {
    const int64_t* e = as_const_int(sch.loop_stmt(loops[i], "reduction_nest").as<ForNode>()->extent);
    if (!e) return std::nullopt;
    if (roles[i] == LoopRole::kSpatial && n.reduce.empty()) {
      n.spatial.push_back(loops[i]);
      n.space *= *e;
    } else if (roles[i] == LoopRole::kReduce) {
      n.reduce.push_back(loops[i]);
      n.work *= *e;
    } else {
      return std::nullopt;
    }
  }
  return n;
}

}  // namespace kiln::search
