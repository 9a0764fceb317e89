// Postprocessing: what a candidate needs once its decisions are drawn, as
// MetaSchedule's postprocessors. It depends on the drawn tile sizes (which
// loops fit the parallel extent, which innermost loop is short enough to
// vectorize), so it cannot be part of the sketch: it runs after every
// sample and every replay of a mutated trace, recorded after an
// enter_postproc instruction so that the stored trace replays alone.
//
//   - reduction blocks get their init as a block of its own, before their
//     outermost reduction loop (decompose_reduction);
//   - each loop nest's leading spatial loops are fused, up to the root's
//     kiln.parallel extent, and made parallel;
//   - each block's innermost spatial loop, up to kiln.vectorize long, is
//     vectorized;
//   - each nest's outermost loop gets pragma_auto_unroll_max_step from the
//     root's sampled kiln.unroll.
#pragma once

#include "tir/schedule/schedule.h"

namespace kiln::search {

// Throws ScheduleError (or kiln::Error) when the candidate cannot be
// completed; the search counts it and draws another.
void postprocess(Schedule& sch);

}  // namespace kiln::search
