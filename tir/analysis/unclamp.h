// A statement with its index clamps taken off, for sizing regions.
//
// A padded window reads its rows clamped into the image, under a select
// that zeroes what lies outside:
//
//   pad[h] = select(1 <= h < 113, conv[min(max(h - 1, 0), 111)], 0)
//
// so the part of `conv` a tile of h reads has fewer rows at the image's
// edge than inside, and no constant size. Read as h - 1, it has the
// same size in every tile (its rows past the edge belong to no one).
// A box of that size, where the tile's rows start, holds the clamped
// reads too, wherever the box meets the image: the clamp moves an index
// only into [0, 111], toward the box. compute_at sizes a
// kCoverRegionAnn block's part so (tir/stmt.h), and compact_buffers
// sizes an allocation so where the clamped regions have no constant
// size.
#pragma once

#include "tir/stmt.h"

namespace kiln {

// Block annotation (an integer, 1): compute_at moves the block under a
// loop whose iterations need parts of its output of different sizes (a
// depthwise convolution's tiles read clamped rows: fewer at the image's
// edge), as the box its consumers' reads make unclamped (below), of
// one size in every iteration; the rows past the buffer's ends are
// predicated off. Set by the
// search on a reduction it computes in another's tiles
// (search/rules/rules.h, compute_in_tiles).
inline constexpr const char* kCoverRegionAnn = "kiln.cover_region";

// `s` with every min(max(e, lo), hi) and max(min(e, hi), lo) of constant
// bounds replaced by e. Only for finding regions: the result computes
// something else.
Stmt unclamp(const Stmt& s);

}  // namespace kiln
