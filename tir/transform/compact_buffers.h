// Allocations placed where they are used, sized to what is used there.
//
// Schedules make buffers the size of the whole tensor (cache_write's C_local
// is M x N) and move the blocks that use them into tiles; here each
// allocation sinks to the innermost statement that holds every access to it,
// and shrinks to the region accessed there, with the loops outside held
// fixed. The register tile of a blocked matmul comes out 4 x 32, allocated
// inside the tile loop, indexed relative to the tile's corner:
//
//   allocate C_local (1024, 1024)         for i0, j0:
//   for i0, j0:                     ->      allocate C_local (4, 32)
//     for k, i1, j1:                        for k, i1, j1:
//       C_local[i0*4 + i1, j0*32 + j1]        C_local[i1, j1] += ...
//
// A shared buffer's region is what all the block's threads touch: its
// threadIdx and vthread loops range over their extents, not fixed
// (tir/thread_axes.h), and the code generator declares it once per block
// wherever the allocation sits.
//
// A dimension whose accessed extent is not a constant keeps the buffer's
// extent there. Runs on the lowered form (after lower_blocks), before
// flatten_buffers.
#pragma once

#include "tir/stmt.h"

namespace kiln {

PrimFunc compact_buffers(const PrimFunc& f);

}  // namespace kiln
