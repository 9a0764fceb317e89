// Parallel loops do not nest: the runtime runs one parallel region at a time
// on its pool, so a parallel loop inside another becomes serial. The outer one
// keeps the parallelism; results are the same either way.
#pragma once

#include "tir/stmt.h"

namespace kiln {

PrimFunc serialize_nested_parallel(const PrimFunc& f);

}  // namespace kiln
