// What tuning-database tests store: real workloads with their true keys, and
// traces that read, so that imports and merges (which check both) take them.
#pragma once

#include <string>

#include "tuning_logs/record.h"

namespace kiln::tuning {

// matmul M=m, N=K=8, as `kiln tune-op` would store it.
WorkloadEntry test_workload(int m);

// A trace that reads, different for each tag (its get_block names the tag).
std::string test_trace(const std::string& tag);

}  // namespace kiln::tuning
