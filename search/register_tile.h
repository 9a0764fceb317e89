// Register tiles at the level of decisions: how many vector registers the
// drawn tile sizes of a design give each tiled block's register tile, and a
// repair that shrinks the tiles that do not fit.
//
// Multi-level tiling (rules.h) annotates each block it tiles with the
// registers its accumulators may use (kiln.tiled) and the lanes of one
// register (kiln.lanes). Its register tile is read from the trace by
// def-use (tir/schedule/dataflow.h), not by position: the tile samples of
// the loops get_loops gave for the annotated block's handle, four-level
// ones (spatial loops) in loop order, the last the loop that is vectorized
// unless a kiln.vector_axis annotation names another, and two-level ones
// (reductions). Where the rule writes its annotations, and in which order
// it draws the tiles, does not matter. Postprocessing
// refuses a candidate whose register tile does not fit (RegisterTileError,
// postproc.h). Drawn uniformly, many tile decisions of a large workload do
// not fit; rather than draw again and again, sampling repairs a draw by
// moving factors of its S3 tiles out to S2, the tile of the accumulators in
// memory. A tile's product, and so the loop's extent, stays: the repair
// needs no IR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/schedule/random.h"
#include "tir/schedule/trace.h"

namespace kiln::search {

struct RegisterTile {
  std::string block;          // the tiled block's name, as the trace's get_block gives it
  std::vector<size_t> tiles;  // four-level tile samples of spatial loops, in loop order
  int64_t budget = 0;         // vector registers
  int64_t lanes = 1;
  size_t vector_tile = 0;     // which of `tiles` is vectorized: the last, unless kiln.vector_axis says
  std::vector<size_t> reductions;  // the block's two-level tile samples of reduction loops
};

// The vector registers one S3 tile of `extent` holds: the vectorized one
// (the last spatial loop, when postprocessing vectorizes it) in whole
// vectors of `lanes`, any other one element per register.
int64_t s3_registers(int64_t extent, bool vectorized, int64_t lanes);

// The tiled blocks of a design, in the order of their kiln.tiled annotations.
std::vector<RegisterTile> register_tiles(const Trace& design);

// The vector registers the decisions give `tile`: the product of its S3
// tiles, the vectorized one in vectors of `lanes`.
int64_t registers_of(const Trace& design, const RegisterTile& tile);

// `design` with its tile decisions shrunk until every register tile fits
// its budget (or nothing more can move).
Trace fit_register_tiles(const Trace& design, RandomState& rand);

}  // namespace kiln::search
