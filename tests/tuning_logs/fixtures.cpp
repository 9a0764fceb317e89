#include "tuning_logs/fixtures.h"

#include "support/postgres.h"
#include "support/scratch.h"

#include <nlohmann/json.hpp>

#include "ops/workload.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::tuning {

std::string fresh_database(const std::string& backend, const std::string& name) {
  if (backend == "sqlite") return testing::scratch_path(name + ".db");
  return testing::fresh_postgres_database(name);
}

std::string backend_name(const ::testing::TestParamInfo<std::string>& p) { return p.param; }


WorkloadEntry test_workload(int m) {
  ops::Workload w = ops::parse_workload("matmul:M=" + std::to_string(m) + ",N=8,K=8");
  return workload_entry(ops::build_workload(w), w.op, w.str(), ops::workload_flops(w));
}

std::string test_trace(const std::string& tag) {
  nlohmann::json inst = {{"kind", "get_block"}, {"inputs", nlohmann::json::array()}, {"attrs", {tag}}, {"outputs", {"b0"}}};
  return nlohmann::json{{"kiln_trace", 1}, {"instructions", {inst}}}.dump();
}

}  // namespace kiln::tuning
