// The program a task runs when no tuning record schedules it.
//
// A model compiled without a tuning database, or with one that a time
// budget ended before every task was tuned, ran each untuned task's
// default program: the compute definition as written, one thread, no
// vectors. resnet18 224² ran at 785 ms that way, against 6.4 ms tuned;
// one untuned 3×3 convolution at 7² took 109 ms. TVM's untuned operators
// run their TOPI fallback schedules instead; kiln's equivalent is the
// design its search measures first: the first register design
// (register_designs.h: register tiles sized from the target, the outer
// loops parallel, the vector axis vectorized), postprocessed like any
// candidate; for a workload without tiled blocks (elementwise, pooling,
// layout transforms), the first sketch drawn with a fixed seed. Nothing is
// measured: no runner, no database, the same program for the same
// workload and target every time.
#pragma once

#include <optional>
#include <vector>

#include "search/sample.h"
#include "targets/target.h"
#include "tir/stmt.h"

namespace kiln::search {

// The untuned design of `f` for `target` (`constants`: parameters that are
// a model's weights, as for register_designs); nullopt when the space
// makes no candidate (the default program is left).
std::optional<Candidate> untuned_design(const PrimFunc& f, const Target& target,
                                        const std::vector<int>& constants = {});

}  // namespace kiln::search
