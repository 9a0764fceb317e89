// Mutations of a candidate's design: one decision changed, the rest kept,
// as in MetaSchedule's mutators. The caller replays the result
// (sample.h's replay_candidate), which checks the decision and
// postprocesses anew.
//
//   - tile size: one tile moves a factor from one level to another (the
//     extent's factorisation, hence the parallel extent, changes); a tile
//     that need not divide the extent (sample_tile) may instead take
//     another innermost size, its outermost then inferred on replay;
//   - unroll: a categorical draw (the auto-unroll step) takes another value;
//   - compute location: a compute location is drawn again.
#pragma once

#include <optional>

#include "tir/schedule/random.h"
#include "tir/schedule/trace.h"

namespace kiln::search {

// `design` (a trace without postprocessing) with one decision changed, or
// nullopt when it has no decision that can change.
std::optional<Trace> mutate(const Trace& design, RandomState& rand);

}  // namespace kiln::search
