// A stored record applies to its workload's canonical form, whatever the
// function handed over calls its blocks: the rule every reader of the
// database shares (tuning_logs/apply_record.h).
#include <gtest/gtest.h>

#include "core/structural.h"
#include "ops/workload.h"
#include "support/error_of.h"
#include "tir/analysis/workload_key.h"
#include "tir/schedule/schedule.h"
#include "tuning_logs/apply_record.h"

namespace kiln::tuning {
namespace {

TEST(ApplyRecord, ATraceWrittenOnTheCanonicalFormAppliesToTheWorkloadAsBuilt) {
  const PrimFunc built = ops::build_workload(ops::parse_workload("matmul:M=8,N=8,K=8"));
  // The tuner schedules the canonical form: the block "C" is "b0" there.
  Schedule sch(canonical_workload(built));
  const std::vector<LoopRV> loops = sch.get_loops(sch.get_block("b0"));
  sch.split(loops[0], {kInfer, 4});
  TuningRecord r;
  r.id = 17;
  r.workload_key = workload_key(built);
  r.trace_json = sch.trace().to_json().dump();

  EXPECT_TRUE(structural_equal(apply_record(r, built), sch.func()));
  // The block's own name is not what the trace says.
  EXPECT_NE(testing::error_of([&] { apply_trace(record_trace(r), built); }).find("b0"), std::string::npos);
}

TEST(ApplyRecord, ARecordThatCannotBeReadOrNoLongerAppliesIsNamed) {
  const PrimFunc built = ops::build_workload(ops::parse_workload("matmul:M=8,N=8,K=8"));
  TuningRecord r;
  r.id = 3;
  r.workload_key = "v1-abc";
  r.trace_json = "{";
  EXPECT_EQ(testing::error_of([&] { record_trace(r); }).rfind("record 3 (workload v1-abc) holds a trace that cannot be read: ", 0),
            0u);
  r.trace_json = R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["b9"], "outputs": ["b0"]}]})";
  EXPECT_EQ(testing::error_of([&] { apply_record(r, built); })
                .rfind("record 3 (workload v1-abc) holds a trace that no longer applies: trace instruction 0: (get_block)", 0),
            0u);
}

}  // namespace
}  // namespace kiln::tuning
