// The design space of a workload: its sketches, the traces the schedule
// rules (rules/rules.h) make of it, each a family of candidates that differ
// only in their sampled decisions.
//
//   std::vector<Trace> sketches = design_space(f, SpaceParams::for_target(t));
//   std::optional<Candidate> c = sample_candidate(f, sketches[0], params, seed);
//
// The rules run in phases over every sketch: auto-inline, add-rfactor and
// multi-level tiling of each block (both branch), compute locations of what feeds a tiled
// block, then the parallel/vectorize/unroll annotations. A sketch ends
// before postprocessing (postproc.h), which every candidate runs after its
// decisions are drawn.
#pragma once

#include <vector>

#include "search/space_params.h"
#include "tir/schedule/trace.h"
#include "tir/stmt.h"

namespace kiln::search {

std::vector<Trace> design_space(const PrimFunc& f, const SpaceParams& p);

}  // namespace kiln::search
