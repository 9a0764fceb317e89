// The hand schedules of examples/schedules, replayed on shapes that none of
// their tiles divide as well as on shapes they fit, compiled with LLVM and
// run on 1 and 2 threads against the reference interpreter: a trace is a
// schedule for every shape of its operator, not only the one it was tuned for.
#include <gtest/gtest.h>

#include <sstream>

#include "llvm_check.h"
#include "support/example_schedules.h"
#include "driver/op_program.h"

namespace kiln {
namespace {

using testing::ExampleSchedule;

class ExampleSchedules : public ::testing::TestWithParam<ExampleSchedule> {};

TEST_P(ExampleSchedules, MatchInterpreter) {
  const ExampleSchedule& e = GetParam();
  Target target = Target::parse("llvm -num-cores=2");
  std::ostringstream what;
  what << e;
  testing::expect_llvm_matches_interpreter(testing::prepare_example(e, target), target, what.str());
}

INSTANTIATE_TEST_SUITE_P(All, ExampleSchedules, ::testing::ValuesIn(testing::kCpuScheduleExamples));

}  // namespace
}  // namespace kiln
