// compute_in_tiles: a tiled reduction's producer, itself a reduction,
// computed in the consumer's tiles (rules.h).
//
//   for tile in C's S0 (or S1) tiles:            (a job of the threads)
//     for cb: P's part for the tile                a depthwise convolution,
//       for kh, kw: for y, x, lanes: P += ...        a register tile of the part
//     for ax: E = clip(P)                          its epilogue
//     for ... C's tiles: C += E[...] * W[...]      the 1x1 projection
//
// P's part lives in a buffer of the tile's size (lowering compacts it),
// which the tile reads from the cache instead of P's whole output from
// memory. A consumer with a window (P a 1x1 expansion, C the depthwise
// convolution) works too, but each tile then computes its halo again.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/analysis/unclamp.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"

namespace kiln::search {
namespace {

// The blocks from `producer` to its tiled consumer: the producer, then the
// injective stages between (each with one consumer), in order; and the
// consumer. Empty when the chain forks or ends elsewhere.
std::pair<std::vector<std::string>, std::string> chain_to_consumer(const PrimFunc& f, const std::string& producer) {
  std::vector<std::string> chain = {producer};
  for (int step = 0; step < 8; ++step) {
    const std::vector<std::string> users = consumers(f, chain.back());
    if (users.size() != 1) break;
    const BlockInfo u = block_info(f, users[0]);
    if (multi_level_tiling_takes(u)) return {chain, users[0]};
    if (!u.is_injective || u.writes_param) break;
    chain.push_back(users[0]);
  }
  return {};
}

// A register tile for `block`, just moved into a tile (its nest: one loop
// per iter var, in their order): its reduction loops go before its last
// `inner` spatial loops but the vector one, which run over the whole part
// the tile needs, so that the reduction runs over a tile of registers of
// that part's size. No factor is drawn: the part's size follows the
// consumer's tiles, which the search redraws on every replay, and a
// factor drawn for one part would be wrong for the next.
void tile_registers(Schedule& sch, const std::string& block, size_t inner) {
  const BlockNode* b = block_info(sch.func(), block).block;
  const size_t n = b->iter_vars.size();
  const std::vector<LoopRV> loops = sch.get_loops(sch.get_block(block));
  KILN_ICHECK(loops.size() >= n) << "compute_in_tiles: block " << block << " has fewer loops than axes";
  const std::vector<LoopRV> own(loops.end() - static_cast<std::ptrdiff_t>(n), loops.end());
  std::vector<size_t> spatial, reduce;
  for (size_t k = 0; k < n; ++k) (b->iter_vars[k].is_reduce() ? reduce : spatial).push_back(k);
  if (spatial.size() < inner + 1 || reduce.empty()) return;
  const size_t outer = spatial.size() - 1 - inner;
  std::vector<LoopRV> order;
  for (size_t i = 0; i < outer; ++i) order.push_back(own[spatial[i]]);
  for (size_t k : reduce) order.push_back(own[k]);
  for (size_t i = outer; i < spatial.size(); ++i) order.push_back(own[spatial[i]]);
  sch.reorder(order);
}

// Inlines the injective blocks that only `block` reads (its input's
// padding): the producer runs untiled, in the consumer's tiles, where a
// padded copy at the root would be one more pass over memory.
void inline_inputs(Schedule& sch, const std::string& block) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    const BlockInfo info = block_info(sch.func(), name);
    if (!info.is_injective || info.writes_param) continue;
    if (consumers(sch.func(), name) != std::vector<std::string>{block}) continue;
    sch.compute_inline(sch.get_block(name));
  }
}

// For each of the first `n` loops above `consumer` (tiled), whether its
// read of `producer`'s output follows the iter var the loop was split
// from. By the loop's name, <loop>_<level> (tir/schedule/primitive/
// split.cpp): a piece of one iteration is simplified out of the block's
// bindings, so this draw's bindings alone would miss a loop that the next
// draw makes longer.
std::vector<bool> follows_read(const Schedule& sch, const std::string& consumer, const std::string& producer,
                               size_t n) {
  const BlockNode* c = block_info(sch.func(), consumer).block;
  const std::unordered_set<const VarNode*> read_vars = vars_reading(sch.func(), consumer, producer);
  auto base = [](const std::string& name) { return name.substr(0, name.rfind('_')); };
  const std::optional<Located> loc = locate_block(sch.func().body(), consumer);
  const BlockRealizeNode* realize = loc ? loc->stmt.as<BlockRealizeNode>() : nullptr;
  KILN_ICHECK(realize) << "compute_in_tiles: block " << consumer << " is not found";
  std::unordered_map<std::string, bool> followed;  // a loop's base name -> whether the read follows its iter var
  for (size_t k = 0; k < c->iter_vars.size(); ++k)
    for (const VarNode* v : vars_in(realize->iter_values[k]))
      followed[base(v->name)] = read_vars.count(c->iter_vars[k].var().operator->()) > 0;
  std::vector<bool> out;
  const std::vector<Stmt> loops = enclosing_loops(*loc);
  for (size_t i = 0; i < n && i < loops.size(); ++i) {
    auto it = followed.find(base(loops[i].as<ForNode>()->loop_var->name));
    out.push_back(it == followed.end() || it->second);  // an iter var of one iteration: either way
  }
  return out;
}

}  // namespace

std::vector<std::string> producers_in_tiles(const PrimFunc& f) {
  std::vector<std::string> out;
  for (const std::string& name : blocks_in_order(f)) {
    const BlockInfo info = block_info(f, name);
    if (multi_level_tiling_takes(info) && !info.writes_param && !chain_to_consumer(f, name).second.empty()) out.push_back(name);
  }
  return out;
}

std::vector<Schedule> compute_in_tiles(const Schedule& in, const std::string& producer, const SpaceParams& /*p*/) {
  const auto [chain, consumer] = chain_to_consumer(in.func(), producer);
  if (consumer.empty()) return {};
  const BlockNode* c = block_info(in.func(), consumer).block;
  if (!c->annotations.count(kTiledAnn)) return {};
  // The consumer's S0 and S1 tiles: its first loops, one per spatial iter
  // var each (multi-level tiling split every loop of its nest, one per
  // iter var, into kTileStructure's levels).
  size_t ns = 0, nr = 0;
  for (const IterVar& iv : c->iter_vars) ++(iv.is_reduce() ? nr : ns);
  const size_t nloops = enclosing_loops(*locate_block(in.func().body(), consumer)).size();
  if (ns == 0 || nloops != static_cast<size_t>(kSpatialTileLevels) * ns + static_cast<size_t>(kReduceTileLevels) * nr)
    return {};
  // Which of the consumer's S0 and S1 loops (the first, one per spatial
  // iter var each, in the order tiling chose) its read of the chain's
  // output follows: a projection's pixels, not its output channels.
  const std::vector<bool> follows = follows_read(in, consumer, chain.back(), 2 * ns);
  if (std::find(follows.begin(), follows.begin() + static_cast<std::ptrdiff_t>(ns), true) ==
      follows.begin() + static_cast<std::ptrdiff_t>(ns))
    return {};
  std::vector<Schedule> out;
  for (size_t levels : {1, 2})
    for (size_t inner : {1, 2}) {
      Attempt<Schedule> s = attempt(in, [&](Schedule& sch) {
        inline_inputs(sch, producer);
        for (const std::string& b : chain) sch.annotate(sch.get_block(b), kCoverRegionAnn, AnnValue(int64_t{1}));
        // The S0 (and S1) loops of the iter vars the read does not follow
        // go under the others, and the part is computed there, once for
        // all their iterations: else every tile of output channels would
        // compute the same part again.
        const std::vector<LoopRV> cl = sch.get_loops(sch.get_block(consumer));
        std::vector<LoopRV> order, after;
        for (size_t i = 0; i < levels * ns; ++i) (follows[i] ? order : after).push_back(cl[i]);
        const LoopRV at = order.back();
        order.insert(order.end(), after.begin(), after.end());
        if (!after.empty()) sch.reorder(order);
        for (size_t k = chain.size(); k-- > 0;) sch.compute_at(sch.get_block(chain[k]), at);
        tile_registers(sch, producer, inner);
      });
      if (s) out.push_back(std::move(*s));
    }
  return out;
}

}  // namespace kiln::search
