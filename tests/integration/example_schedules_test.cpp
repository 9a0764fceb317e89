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

const ExampleSchedule kExamples[] = {
    {"matmul_1024_avx2.json", "matmul:M=50,N=70,K=30"},
    {"matmul_1024_avx2.json", "matmul:M=12,N=32,K=8"},
    {"matmul_1024_avx512.json", "matmul:M=50,N=70,K=30"},
    {"matmul_1024_avx512.json", "matmul:M=12,N=128,K=8"},
    {"matmul_1024_loops.json", "matmul:M=50,N=70,K=30"},
    {"conv2d_nchw_avx2.json", "conv2d_nchw:N=1,C=5,H=9,W=17,K=12,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_avx2.json", "conv2d_nchw:N=2,C=3,H=7,W=11,K=8,R=3,S=3,stride=2,pad=1"},
    {"conv2d_nchw_avx2.json", "conv2d_nchw:N=1,C=4,H=6,W=14,K=16,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_avx512.json", "conv2d_nchw:N=1,C=5,H=9,W=17,K=12,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_avx512.json", "conv2d_nchw:N=1,C=4,H=6,W=14,K=16,R=3,S=3,stride=1,pad=1"},
};

class ExampleSchedules : public ::testing::TestWithParam<ExampleSchedule> {};

TEST_P(ExampleSchedules, MatchInterpreter) {
  const ExampleSchedule& e = GetParam();
  Target target = Target::parse("llvm -num-cores=2");
  std::ostringstream what;
  what << e;
  testing::expect_llvm_matches_interpreter(testing::prepare_example(e, target), target, what.str());
}

INSTANTIATE_TEST_SUITE_P(All, ExampleSchedules, ::testing::ValuesIn(kExamples));

}  // namespace
}  // namespace kiln
