#include "search/rules/tiling.h"

#include <algorithm>

#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_util.h"

namespace kiln::search {

std::optional<Tiled> tile(const Schedule& in, const std::string& block, const SpaceParams& p, size_t vector_loop,
                          size_t fixed) {
  Tiled t{in, std::vector<std::vector<LoopRV>>(kTileStructure.size())};
  Schedule& sch = t.sch;
  BlockRV b = sch.get_block(block);
  std::vector<LoopRV> loops = sch.get_loops(b);
  const std::vector<LoopRV> inner(loops.end() - static_cast<std::ptrdiff_t>(fixed), loops.end());
  loops.resize(loops.size() - fixed);
  std::vector<Var> vars;
  for (LoopRV l : loops) vars.push_back(sch.loop_var(l));
  std::vector<LoopRole> roles = loop_roles(sch.func(), block, vars);
  const std::vector<int> bound = bound_iter_vars(sch.func(), block, vars);
  const std::vector<double> along = bytes_read_along(sch.func(), block);
  std::vector<double> s0_split_bytes;  // per S0 tile: what splitting it splits of the reads
  std::vector<int64_t> s0_extent;      // per S0 tile: its loop's whole extent
  std::vector<int> s_levels, r_levels;
  for (size_t i = 0; i < kTileStructure.size(); ++i) (kTileStructure[i] == 'S' ? s_levels : r_levels).push_back(static_cast<int>(i));
  std::optional<LoopRV> vector_piece;
  int64_t spatial = 0, vector_index = -1;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (roles[i] != LoopRole::kSpatial && roles[i] != LoopRole::kReduce) return std::nullopt;
    const bool is_spatial = roles[i] == LoopRole::kSpatial;
    const std::vector<int>& levels = is_spatial ? s_levels : r_levels;
    const int n = static_cast<int>(levels.size());
    // A spatial loop that is not vectorized may end in a partial tile
    // (sample_tile): register tiles of 6 rows exist for 1024 rows. The
    // vector loop's tiles divide it, so no vector is ever partial; nor do
    // the reduction's, so no sum is split unevenly.
    std::vector<ExprRV> factors = is_spatial && i != vector_loop
                                      ? sch.sample_tile(loops[i], n, p.max_innermost_factor)
                                      : sch.sample_perfect_tile(loops[i], n, p.max_innermost_factor);
    const int64_t* e = as_const_int(sch.loop_stmt(loops[i], "multi_level_tiling").as<ForNode>()->extent);
    const int64_t whole_extent = e ? *e : 1;
    std::vector<LoopRV> pieces = sch.split(loops[i], std::vector<Factor>(factors.begin(), factors.end()));
    for (int k = 0; k < n; ++k) {
      if (i == vector_loop && k == n - 1) continue;  // goes last, below
      t.tiles[levels[k]].push_back(pieces[k]);
      if (levels[k] == 0) {
        s0_split_bytes.push_back(bound[i] >= 0 ? along[static_cast<size_t>(bound[i])] : 0.0);
        s0_extent.push_back(whole_extent);
      }
    }
    if (i == vector_loop) {
      vector_piece = pieces[n - 1];
      vector_index = spatial;
    }
    spatial += is_spatial;
  }
  if (!vector_piece || vector_index < 0) return std::nullopt;
  t.tiles[s_levels.back()].push_back(*vector_piece);
  // The S0 tiles are the jobs the threads share out (postprocessing fuses
  // and parallelizes them), each thread a contiguous range of the first.
  // Outermost goes the tile whose split splits the most bytes of the
  // block's reads, on a tie the longer loop: conv2d's output rows before
  // its output channels where the input outweighs the weights, so that
  // each thread reads the rows it wrote in the kernel before and not
  // half of them from the other thread's cache; the channels first where
  // the weights weigh more (docs/tuner.md, "Which way the threads split").
  std::vector<size_t> s0(t.tiles[0].size());
  for (size_t k = 0; k < s0.size(); ++k) s0[k] = k;
  std::stable_sort(s0.begin(), s0.end(), [&](size_t a, size_t b) {
    return split_first(s0_split_bytes[a], s0_extent[a], s0_split_bytes[b], s0_extent[b]);
  });
  std::vector<LoopRV> sorted;
  for (size_t k : s0) sorted.push_back(t.tiles[0][k]);
  t.tiles[0] = sorted;
  std::vector<LoopRV> order;
  for (const std::vector<LoopRV>& level : t.tiles) order.insert(order.end(), level.begin(), level.end());
  order.insert(order.end(), inner.begin(), inner.end());
  sch.reorder(order);
  sch.annotate(b, kTiledAnn, AnnValue(int64_t{p.accumulator_registers()}));
  sch.annotate(b, kLanesAnn, AnnValue(int64_t{fixed > 0 ? 1 : p.lanes}));
  // Only another axis than the last is written down: the sketches of
  // earlier versions, which vectorize the last, stay as they were.
  if (vector_index + 1 != spatial) sch.annotate(b, kVectorAxisAnn, AnnValue(vector_index));
  return t;
}

std::vector<Schedule> write_backs(const Tiled& t, const std::string& block, const std::string& epilogue) {
  std::vector<Schedule> written;
  written.push_back(t.sch);  // results written in place
  for (int level : {0, 1}) {
    // Where this write-back does not fit the block, the other sketches stand.
    Attempt<Schedule> w = attempt(t.sch, [&](Schedule& sch) {
      BlockRV writer = epilogue.empty() ? sch.cache_write(sch.get_block(block), 0, "local") : sch.get_block(epilogue);
      sch.reverse_compute_at(writer, t.tiles[level].back());
    });
    if (w) written.push_back(std::move(*w));
  }
  return written;
}

std::string epilogue_of(const PrimFunc& f, const std::string& block) {
  std::vector<std::string> users = consumers(f, block);
  if (users.size() == 1 && block_info(f, users[0]).is_injective) return users[0];
  return "";
}

}  // namespace kiln::search
