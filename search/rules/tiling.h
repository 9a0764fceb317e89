// Multi-level tiling's pieces, shared by its two rules (rules.h): the
// plain tiling (multi_level_tiling.cpp) and the tiling with a tensor
// intrinsic (tiling_with_intrin.cpp). Internal to search/rules.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/space_params.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {

// A tiled sketch and its tile loops.
struct Tiled {
  Schedule sch;
  // tiles[level]: the loops of that level, one per tiled loop of its kind.
  std::vector<std::vector<LoopRV>> tiles;
};

// Splits every loop of `block` and reorders the pieces into kTileStructure,
// the S3 piece of loop `vector_loop` last: the loop postprocessing
// vectorizes. The innermost `fixed` loops (a tensor intrinsic's) stay as
// they are, below the tiles; a step of the vector loop is then one
// register (kLanesAnn 1), not the target's lanes. Nullopt when a loop
// drives both kinds of iter var (or none).
std::optional<Tiled> tile(const Schedule& in, const std::string& block, const SpaceParams& p, size_t vector_loop,
                          size_t fixed = 0);

// The register tile written back under the S0 or S1 tiles, beside the
// results written in place: the sketches' three ways to write the result.
std::vector<Schedule> write_backs(const Tiled& t, const std::string& block, const std::string& epilogue);

// The block's only consumer when it is injective (an epilogue such as
// relu, which can take the write-back's place); empty otherwise.
std::string epilogue_of(const PrimFunc& f, const std::string& block);

// Multi-level tiling with a tensor intrinsic (rules.h, multi_level_tiling):
// the sketches, or none where no intrinsic of the target fits the block.
std::vector<Schedule> tiling_with_intrin(const Schedule& in, const std::string& block, const SpaceParams& p);

}  // namespace kiln::search
