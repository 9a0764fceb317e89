#include "search/block_info.h"
#include "search/rules/rules.h"

namespace kiln::search {
namespace {

// "SSRSRS": the level of each tile, outermost first; S levels are spatial.
constexpr const char kStructure[] = "SSRSRS";

struct Tiled {
  Schedule sch;
  // tiles[level]: the loops of that level, one per tiled loop of its kind.
  std::vector<std::vector<LoopRV>> tiles;
};

// Splits every loop of `block` and reorders the pieces into kStructure.
// Nullopt when a loop drives both kinds of iter var (or none).
std::optional<Tiled> tile(const Schedule& in, const std::string& block, const SpaceParams& p) {
  Tiled t{in, std::vector<std::vector<LoopRV>>(sizeof(kStructure) - 1)};
  Schedule& sch = t.sch;
  BlockRV b = sch.get_block(block);
  std::vector<LoopRV> loops = sch.get_loops(b);
  std::vector<Var> vars;
  for (LoopRV l : loops) vars.push_back(sch.loop_var(l));
  std::vector<LoopRole> roles = loop_roles(sch.func(), block, vars);
  std::vector<int> s_levels, r_levels;
  for (int i = 0; kStructure[i]; ++i) (kStructure[i] == 'S' ? s_levels : r_levels).push_back(i);
  for (size_t i = 0; i < loops.size(); ++i) {
    if (roles[i] != LoopRole::kSpatial && roles[i] != LoopRole::kReduce) return std::nullopt;
    const std::vector<int>& levels = roles[i] == LoopRole::kSpatial ? s_levels : r_levels;
    const int n = static_cast<int>(levels.size());
    std::vector<ExprRV> factors = sch.sample_perfect_tile(loops[i], n, p.max_innermost_factor);
    std::vector<LoopRV> pieces = sch.split(loops[i], std::vector<Factor>(factors.begin(), factors.end()));
    for (int k = 0; k < n; ++k) t.tiles[levels[k]].push_back(pieces[k]);
  }
  std::vector<LoopRV> order;
  for (const std::vector<LoopRV>& level : t.tiles) order.insert(order.end(), level.begin(), level.end());
  sch.reorder(order);
  sch.annotate(b, kTiledAnn, AnnValue(int64_t{p.accumulator_registers()}));
  sch.annotate(b, kLanesAnn, AnnValue(int64_t{p.lanes}));
  return t;
}

}  // namespace

std::vector<Schedule> multi_level_tiling(const Schedule& in, const std::string& block, const SpaceParams& p) {
  BlockInfo info = block_info(in.func(), block);
  if (!info.has_reduce || !info.has_spatial || !info.has_data_reuse) return {in};
  std::optional<Tiled> tiled;
  try {
    tiled = tile(in, block, p);
  } catch (const ScheduleError&) {
    return {in};
  }
  if (!tiled) return {in};

  // The epilogue that can take the write-back's place: the only consumer, injective.
  std::vector<std::string> users = consumers(in.func(), block);
  std::string epilogue;
  if (users.size() == 1 && block_info(in.func(), users[0]).is_injective) epilogue = users[0];

  std::vector<Schedule> written;
  written.push_back(tiled->sch);  // results written in place
  for (int level : {0, 1}) {  // a register tile written back under the S0 or S1 tiles
    Schedule sch = tiled->sch;
    try {
      BlockRV writer = epilogue.empty() ? sch.cache_write(sch.get_block(block), 0, "local") : sch.get_block(epilogue);
      sch.reverse_compute_at(writer, tiled->tiles[level].back());
      written.push_back(std::move(sch));
    } catch (const ScheduleError&) {
      // This write-back does not fit the block; the other sketches stand.
    }
  }
  if (info.packable_read < 0) return written;

  // Each again with the vector operand packed: a copy whose place
  // compute_location samples, and which lowering compacts to the region
  // used under that place (under a column tile: a K x tile panel, read
  // contiguously by the vector loads, as the hand schedules pack B).
  std::vector<Schedule> out = written;
  for (const Schedule& s : written) {
    Schedule sch = s;
    try {
      sch.cache_read(sch.get_block(block), info.packable_read, "global");
      out.push_back(std::move(sch));
    } catch (const ScheduleError&) {
      // Not packable in this sketch; the unpacked one stands.
    }
  }
  return out;
}

}  // namespace kiln::search
