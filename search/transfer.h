// Seeds from similar workloads: the best designs measured for another
// workload of the same operator (conv2d 64→64 at 56², for the 28² layer),
// carried over to this one, as transfer-tuning proposes
// (docs/tuner.md, "Seeds from similar workloads").
//
// A trace is written against the canonical form of its workload (blocks
// b0, b1, ...), so one of a workload with the same blocks replays on this
// one as it stands, except where its decisions no longer fit: a tile
// sampled for a loop of 56 does not multiply to 28. Such a decision is
// re-derived, innermost factor first, so that the register tile survives
// where it divides the new extent:
//
//   [2, 2, 1, 14] for a loop of 56  ->  [1, 2, 1, 14] for 28
//                                   ->  [1, 1, 1, 7]  for 7
//
// A tile that may end partially (sample_tile) keeps its inner factors
// while they fit, its outermost inferred: [4, 1, 1, 6] for 22 rows is
// [7, 1, 1, 6] for 40.
//
// and a compute location that is no longer among the legal ones is drawn
// again. A trace whose instructions do not apply at all (another
// structure: dense with and without bias) carries over as nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tir/schedule/trace.h"
#include "tir/stmt.h"

namespace kiln::search {

// `factors` fitted to `extent`: from the innermost out, each the greatest
// common divisor of itself and what is left of the extent; the outermost
// takes the rest.
std::vector<int64_t> fit_tile(const std::vector<int64_t>& factors, int64_t extent);

// The extent of the loop that instruction i of `design` (a tile sample)
// tiles, once the instructions before it replay on `f`; nullopt when they
// do not, or the extent is not constant. A sample_tile's decision covers
// its extent without telling it (its product may be up to twice as long).
std::optional<int64_t> tiled_extent(const PrimFunc& f, const Trace& design, size_t i);

// `design` (a trace without postprocessing, written for another workload)
// with its decisions re-derived so that it replays on `f`; nullopt when it
// does not apply to `f`.
std::optional<Trace> transfer_design(const PrimFunc& f, const Trace& design);

}  // namespace kiln::search
