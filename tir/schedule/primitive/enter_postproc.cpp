// enter_postproc: a marker between the design-space part of a trace and its
// postprocessing. It changes nothing in the program.
#include "tir/schedule/primitive/replay.h"

namespace kiln {

void Schedule::enter_postproc() { record(inst::enter_postproc, {}, NoAttrs{}, {}); }

namespace inst {
const InstructionKind enter_postproc{"enter_postproc", false,
                                     [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                                        const Decision&) {
                                       replay::expect_inputs(in, 0);
                                       sch.enter_postproc();
                                       return std::vector<RV>{};
                                     }};
}  // namespace inst
}  // namespace kiln
