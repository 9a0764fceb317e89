#include "schedule_harness.h"

#include <gtest/gtest.h>

#include "core/structural.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"
#include "driver/op_program.h"

namespace kiln::testing {

PrimFunc workload_func(const std::string& workload) { return ops::build_workload(ops::parse_workload(workload)); }

Schedule schedule_of(const std::string& workload, uint64_t seed) {
  return Schedule(workload_func(workload), ScheduleOptions{seed, /*verify_each_step=*/true});
}

void expect_trace_roundtrip(const Schedule& sch, const PrimFunc& original) {
  const std::string text = sch.trace().to_json().dump();
  Trace back = Trace::parse(text);
  EXPECT_EQ(back.to_json().dump(), text);
  Schedule replayed = apply_trace(back, original, ScheduleOptions{99, true});
  EXPECT_TRUE(structural_equal(replayed.func(), sch.func()))
      << "replayed:\n" << replayed.func() << "\nscheduled:\n" << sch.func();
  EXPECT_EQ(replayed.trace().to_json().dump(), text);
}

void expect_valid_schedule(const Schedule& sch, const PrimFunc& original) {
  expect_trace_roundtrip(sch, original);
  expect_same_results(original, sch.func());
}

}  // namespace kiln::testing

namespace kiln::testing {

void expect_ir(const PrimFunc& f, const std::string& text) {
  PrimFunc want = parse_prim_func(text);
  EXPECT_TRUE(structural_equal(f, want)) << "got:\n" << f << "expected:\n" << want;
}

}  // namespace kiln::testing
