#include "search/transfer.h"

#include <numeric>

#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

// The constant extent of the loop that tile sample `inst` of `t` tiles,
// `sch` holding the state before it.
std::optional<int64_t> extent_before(const Schedule& sch, const Trace& t, const Instruction& inst) {
  const RV* loop = inst.inputs.empty() ? nullptr : std::get_if<RV>(&inst.inputs[0]);
  std::optional<RV> here = loop ? replayed_handle(sch, t, *loop) : std::nullopt;
  if (!here) return std::nullopt;
  const int64_t* extent = as_const_int(sch.loop_stmt(LoopRV{here->id}, "transfer").as<ForNode>()->extent);
  if (!extent) return std::nullopt;
  return *extent;
}

// A tile decision mended for `extent`: a tile that may end partially
// (sample_tile) first keeps its inner factors, its outermost inferred
// (the replay says whether they fit, schedule.h); a perfect tile, or one
// whose inner factors did not fit, takes fit_tile's perfect tile.
TileDecision fit_decision(const Instruction& inst, const TileDecision& tile, int64_t extent) {
  std::vector<int64_t> f = tile.factors;
  if (inst.kind == &inst::sample_tile && !f.empty() && f[0] != TileDecision::kInferred) {
    f[0] = TileDecision::kInferred;
    return {f};
  }
  return {fit_tile(f, extent)};
}

}  // namespace

std::vector<int64_t> fit_tile(const std::vector<int64_t>& factors, int64_t extent) {
  std::vector<int64_t> out(factors.size(), 1);
  int64_t left = extent;
  for (size_t i = factors.size(); i-- > 1;) {
    out[i] = std::gcd(std::max<int64_t>(factors[i], 1), left);
    left /= out[i];
  }
  if (!out.empty()) out[0] = left;
  return out;
}

std::optional<int64_t> tiled_extent(const PrimFunc& f, const Trace& design, size_t i) {
  if (i >= design.size() || !is_tile_sample(design.instructions()[i])) return std::nullopt;
  Trace before;
  for (size_t k = 0; k < i; ++k) before.append(design.instructions()[k]);
  Schedule sch(f);
  try {
    before.apply(sch);
    return extent_before(sch, before, design.instructions()[i]);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<Trace> transfer_design(const PrimFunc& f, const Trace& design) {
  Trace t = design.without_postproc();
  // Each failing decision is mended at most twice (a partial tile's inner
  // factors kept, then a perfect tile): two tries per instruction.
  for (size_t attempt = 0; attempt <= 2 * t.size(); ++attempt) {
    Schedule sch(f);
    try {
      t.apply(sch);
      return t;
    } catch (const TraceError& e) {
      if (e.kind() != "DecisionError") return std::nullopt;
      const size_t i = e.instruction();
      const Instruction& inst = t.instructions()[i];
      if (inst.kind == &inst::sample_compute_location) {
        t = t.with_decision(i, Decision{});  // drawn again when replayed
        continue;
      }
      if (!is_tile_sample(inst)) return std::nullopt;
      // sch holds the state before instruction i: the loop it tiles, there.
      const std::optional<int64_t> extent = extent_before(sch, t, inst);
      const auto* tile = std::get_if<TileDecision>(&inst.decision);
      if (!extent || !tile) return std::nullopt;
      t = t.with_decision(i, fit_decision(inst, *tile, *extent));
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace kiln::search
