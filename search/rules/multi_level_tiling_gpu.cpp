#include <algorithm>

#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/auto_bind.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"

namespace kiln::search {
namespace {

// "SSSRRSRS": the level of each tile, outermost first.
constexpr const char kStructure[] = "SSSRRSRS";
constexpr int kGrid = 0, kVthread = 1, kThreads = 2, kFirstReduce = 3;

}  // namespace

std::vector<Schedule> multi_level_tiling_gpu(const Schedule& in, const std::string& block, const SpaceParams& p) {
  BlockInfo info = block_info(in.func(), block);
  if (!multi_level_tiling_takes(info)) return {in};
  Attempt<std::optional<Schedule>> tiled = attempt([&]() -> std::optional<Schedule> {
    Schedule sch = in;
    BlockRV b = sch.get_block(block);
    std::vector<LoopRV> loops = sch.get_loops(b);
    std::vector<Var> vars;
    for (LoopRV l : loops) vars.push_back(sch.loop_var(l));
    const std::vector<LoopRole> roles = loop_roles(sch.func(), block, vars);
    std::vector<int> s_levels, r_levels;
    for (int i = 0; kStructure[i]; ++i) (kStructure[i] == 'S' ? s_levels : r_levels).push_back(i);
    std::vector<std::vector<LoopRV>> tiles(sizeof(kStructure) - 1);
    for (size_t i = 0; i < loops.size(); ++i) {
      if (roles[i] != LoopRole::kSpatial && roles[i] != LoopRole::kReduce) return std::nullopt;
      const std::vector<int>& levels = roles[i] == LoopRole::kSpatial ? s_levels : r_levels;
      std::vector<ExprRV> f = sch.sample_perfect_tile(loops[i], static_cast<int>(levels.size()), p.max_innermost_factor);
      std::vector<LoopRV> pieces = sch.split(loops[i], std::vector<Factor>(f.begin(), f.end()));
      for (size_t k = 0; k < levels.size(); ++k) tiles[static_cast<size_t>(levels[k])].push_back(pieces[k]);
    }
    std::vector<LoopRV> order;
    for (const std::vector<LoopRV>& level : tiles) order.insert(order.end(), level.begin(), level.end());
    sch.reorder(order);
    auto fused = [&](int level) { return tiles[level].size() == 1 ? tiles[level][0] : sch.fuse(tiles[level]); };
    LoopRV grid = fused(kGrid);
    LoopRV vthread = fused(kVthread);
    LoopRV threads = fused(kThreads);
    sch.bind(grid, "blockIdx.x");
    sch.bind(vthread, "vthread");
    sch.bind(threads, "threadIdx.x");

    // Each thread's results in registers, written back by the thread.
    std::vector<std::string> users = consumers(sch.func(), block);
    BlockRV writer = sch.cache_write(b, 0, "local");
    sch.reverse_compute_at(writer, threads);
    // The epilogue inlined into the write-back, where it can be; else it
    // stays a nest of its own, bound by auto_bind.
    if (users.size() == 1 && block_info(sch.func(), users[0]).is_injective)
      apply_if_possible(sch, [&](Schedule& s) { s.reverse_compute_inline(s.get_block(users[0])); });

    // The operands in shared memory, one tile per R0 iteration.
    const LoopRV r0 = tiles[kFirstReduce].back();
    const size_t n_reads = block_info(sch.func(), block).block->reads.size();
    for (size_t i = 0; i < n_reads; ++i) {
      const BlockNode* bn = block_info(sch.func(), block).block;
      if (bn->reads[i].buffer()->scope != "global") continue;  // the accumulator
      BlockRV copy = sch.cache_read(sch.get_block(block), static_cast<int>(i), "shared");
      sch.compute_at(copy, r0);
      // The lanes of each thread's copy, sampled: 1, 2 or 4 floats at once.
      sch.annotate(copy, kCooperativeFetchAnn, sch.sample_categorical({1, 2, 4}, {1.0 / 3, 1.0 / 3, 1.0 / 3}));
    }
    sch.annotate(sch.get_block(block), kTiledAnn, AnnValue(int64_t{0}));
    return sch;
  });
  if (!tiled || !*tiled) return {in};
  return {std::move(**tiled)};
}

void auto_bind_rule(Schedule& sch, const SpaceParams& p) {
  auto_bind(sch, std::min<int64_t>(kAutoBindThreads, p.max_threads));
}

}  // namespace kiln::search
