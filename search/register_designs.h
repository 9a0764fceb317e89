// Designs whose register tiles are sized from the target, not drawn.
//
// A drawn tile rarely fills the registers: on 1024 rows and columns, one
// draw in dozens makes an AVX2 register tile of 6 rows x 2 vectors (12 of
// the 16 ymm), BLIS's Haswell kernel, and a job of 1000 trials may never
// reach it. Analytical models of BLIS (Low et al., TOMS 2016) size the
// register tile from the vector width and the register count instead. Here
// each sketch's tiled blocks get S3 tiles of v vectors on the vector axis
// (the widest divisor of the axis up to that) and up to floor(registers /
// v) rows on the largest other spatial axis, or split between it and the
// next (4 x 3: conv2d's output channels and rows), the tiles as even as
// the axis allows and a partial last tile where they do not divide it
// (sample_tile: 1024 rows as 171 tiles of 6), for v in 2, 1, 3, 4; and
// around them the loops of a BLIS macro-kernel: the
// vector axis's panels (and every other axis) in S0, run in parallel, with
// a packed operand computed once per panel; the register tiles of the
// rows in S1; no S2, so that the whole reduction runs over one register
// tile. For convolutions, whose weights may stream from memory, also a
// few designs with small register tiles and the output rows' tiles in S2,
// inside the outer reduction loops, so that each chunk of weights serves
// every row tile before the next is read (register_designs.cpp, sized);
// and for 1x1 convolutions, tiles of a few output-channel blocks x a few
// pixels, so that each broadcast input element serves every block
// (channel_rows), among them 3 blocks x 7-8 pixels with the pixel loops
// outside the blocks' (kWideChannels), so that one broadcast at a time is
// live. A register tile alone is not enough: with the other
// tiles of a fresh draw, 6 x 16 tiles of matmul 1024³ ran at 15-37
// GFLOP/s on a Zen 3, their operand packed again for every row tile. The
// search measures these first (search/evolutionary.h), and mutates them
// from there like any other.
#pragma once

#include <cstdint>
#include <vector>

#include "tir/schedule/trace.h"
#include "tir/stmt.h"

namespace kiln::search {

// Up to `limit` distinct designs (traces without postprocessing) of the
// sketches of `f`, register tiles sized as above; each replays on `f` and
// fits its registers. Seeded: the other tiles come from draws with `seed`.
// A packed copy of a parameter in `constants` (a model's weights) goes to
// the root instead of once per panel: a pack that the compiled model runs
// at compile time (docs/tuner.md, "Prepacked weights").
std::vector<Trace> register_designs(const PrimFunc& f, const std::vector<Trace>& sketches, uint64_t seed,
                                    size_t limit, const std::vector<int>& constants = {});

}  // namespace kiln::search
