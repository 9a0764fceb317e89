// Seeds from similar workloads: the best designs measured for another
// workload of the same operator (conv2d 64→64 at 56², for the 28² layer;
// a model's conv+add+relu task, for its conv+relu task of the same
// shapes), carried over to this one, as transfer-tuning proposes
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
#include "tuning_logs/database.h"

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

// `design` as the one of f's `sketches` that takes the same steps, with
// design's decisions, steps matched by where they sit in the trace's
// dataflow (tir/schedule/dataflow.h) rather than by position, so that a
// rule that now writes its steps in another order still takes the designs
// stored before: a sketch that takes them on the same
// blocks, else one that does blocks aside (get_block and compute_inline
// left out of the comparison), for a sibling whose blocks differ from f's:
// a conv+relu's design for a conv+add+relu, which inlines one elementwise
// stage more. Its block names are then f's own, which a plain replay of
// the design would not give: there "b3" is the add, not the relu. nullopt
// when no sketch takes the design's steps.
std::optional<Trace> adopt_decisions(const std::vector<Trace>& sketches, const Trace& design);

// The operator a fused task is built around: "kiln.ConvNCHWc" for
// "kiln.ConvNCHWc+Add+Relu". An operator with nothing fused is its own.
std::string anchor_op(const std::string& op);

// How many arguments two workloads' shape texts give different shapes, in
// order, one's extra arguments counting as different: 1 between
// "f(float32[1, 8], float32[8, 8]) -> float32[1, 8]" and
// "g(float32[1, 8], float32[8, 8], float32[1, 8]) -> float32[1, 8]".
// Texts without shapes (workload strings) compare as a whole: 0 or 1.
int shape_difference(const std::string& a, const std::string& b);

// The workloads of `all` that designs of `entry`'s carry over from, most
// alike first: the same anchor operator, not `entry` itself, FLOPs known;
// nearest in FLOPs first, then with the fewest shapes different, then the
// same operator before a sibling with other fused parts.
std::vector<tuning::WorkloadEntry> similar_workloads(std::vector<tuning::WorkloadEntry> all,
                                                     const tuning::WorkloadEntry& entry);

// The best `designs` designs of each of the `workloads` workloads in `db`
// most like `entry` that have records on `target`, carried over to `f`
// (entry's canonical function, whose design space is `sketches`) through
// adopt_decisions and transfer_design; one of the same operator that no
// sketch matches (a step that depends on the shape) is replayed as it
// is. Those that do not apply are left out.
std::vector<Trace> similar_designs(tuning::Database& db, const tuning::WorkloadEntry& entry, const PrimFunc& f,
                                   const std::vector<Trace>& sketches, const std::string& target, int workloads,
                                   int designs);

}  // namespace kiln::search
