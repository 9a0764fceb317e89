// What tuning-database tests store: real workloads with their true keys, and
// traces that read, so that imports and merges (which check both) take them.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tuning_logs/record.h"

namespace kiln::tuning {

// matmul M=m, N=K=8, as `kiln tune-op` would store it.
WorkloadEntry test_workload(int m);

// A new, empty database of a backend ("sqlite": a scratch file,
// "postgresql": a database on the test server), named after `name`: what to
// pass to open_database. Tests of what both backends do run once for each.
std::string fresh_database(const std::string& backend, const std::string& name);

// The backends, as test parameters print them.
std::string backend_name(const ::testing::TestParamInfo<std::string>& p);

// A trace that reads, different for each tag (its get_block names the tag).
std::string test_trace(const std::string& tag);

}  // namespace kiln::tuning
