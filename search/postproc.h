// Postprocessing: what a candidate needs once its decisions are drawn, as
// MetaSchedule's postprocessors. It depends on the drawn tile sizes (which
// loops fit the parallel extent, which innermost loop is short enough to
// vectorize), so it cannot be part of the sketch: it runs after every
// sample and every replay of a mutated trace, recorded after an
// enter_postproc instruction so that the stored trace replays alone.
//
//   - a tiled block's register tile (its S3 tiles) must fit the
//     vector registers its kiln.tiled annotation allows, else the draw is a
//     RegisterTileError: the space holds no candidate that spills its
//     accumulators, which would never be fast;
//   - reduction blocks get their init as a block of its own, before their
//     outermost reduction loop (decompose_reduction);
//   - a block whose body picks rows of a constant matrix by the position of
//     some iter vars within a period (kUnrollAxesAnn, tir/stmt.h: Winograd's
//     transforms) has those loops split by the period and the pieces
//     unrolled, innermost above its vector loop;
//   - each loop nest's leading loops that no block under them binds to a
//     reduction are fused, up to the root's kiln.parallel extent, and made
//     parallel (a loop some blocks under it do not use counts: without it,
//     a producer computed inside the tiles stopped the whole nest from
//     running in parallel; under a unit loop that holds two nests, each is
//     a chain of its own);
//   - each block's innermost spatial loop, up to kiln.vectorize long, is
//     vectorized where the block's stores are contiguous along it (a
//     scatter never pays);
//   - each nest's outermost loop gets pragma_auto_unroll_max_step from the
//     root's sampled kiln.unroll;
//   - on a GPU (the root's kiln.gpu_threads), each shared-memory copy
//     marked for a cooperative fetch has its loops fused and split over the
//     block's threads (bound to threadIdx.x, as its consumer's are), and a
//     block of more threads than the target runs is a GpuThreadsError, and
//     copies into shared memory larger together than the target's
//     (kiln.gpu_shared_bytes) a GpuSharedMemoryError.
#pragma once

#include "tir/schedule/error.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {

// A drawn register tile needs more vector registers than the target has.
KILN_SCHEDULE_ERROR(RegisterTile);
// A drawn block of threads is larger than the GPU runs.
KILN_SCHEDULE_ERROR(GpuThreads);
// The drawn tiles cached in shared memory need more than a block has.
KILN_SCHEDULE_ERROR(GpuSharedMemory);

// Throws ScheduleError (or kiln::Error) when the candidate cannot be
// completed; the search counts it and draws another.
void postprocess(Schedule& sch);

}  // namespace kiln::search
