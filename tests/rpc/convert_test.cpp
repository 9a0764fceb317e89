// Error kinds across the protobuf edge: every kind survives the trip, and
// an internal error is counted where it enters, so that the test suite
// fails a test that meets one (support/internal_errors.h).
#include <gtest/gtest.h>

#include "rpc/convert.h"
#include "support/internal_errors.h"

namespace kiln::rpc {
namespace {

TEST(Convert, EveryErrorKindCrossesTheProtobufEdge) {
  for (ErrorKind k : {ErrorKind::kNone, ErrorKind::kInstantiation, ErrorKind::kLowering, ErrorKind::kCompile,
                      ErrorKind::kBuildTimeout, ErrorKind::kRuntimeError, ErrorKind::kTimeout, ErrorKind::kWrongAnswer,
                      ErrorKind::kUnsupportedTarget, ErrorKind::kInternal})
    EXPECT_EQ(from_proto(to_proto(k)), k) << error_kind_name(k);
  testing::acknowledge_internal_errors();
}

// How a candidate's weights are made cold crosses to the runner whole: which
// arguments, and the bytes to sweep them out with.
TEST(Convert, ColdArgumentsAndTheirSweepCrossTheProtobufEdge) {
  TimingConfig t;
  t.cold_args = {1, 3};
  t.cold_sweep_bytes = int64_t{21} << 20;
  proto::TimingConfig p;
  to_proto(t, &p);
  const TimingConfig back = from_proto(p);
  EXPECT_EQ(back.cold_args, (std::vector<int>{1, 3}));
  EXPECT_EQ(back.cold_sweep_bytes, int64_t{21} << 20);
  EXPECT_EQ(from_proto(proto::TimingConfig{}).cold_sweep_bytes, 0) << "unset: flush";
}

TEST(Convert, AnInternalErrorIsCountedWhereItEnters) {
  const int64_t before = internal_errors_met();
  EXPECT_EQ(from_proto(proto::RUNTIME_ERROR), ErrorKind::kRuntimeError);
  EXPECT_EQ(internal_errors_met(), before);
  EXPECT_EQ(from_proto(proto::INTERNAL), ErrorKind::kInternal);
  EXPECT_EQ(internal_errors_met(), before + 1);
  testing::acknowledge_internal_errors();
}

}  // namespace
}  // namespace kiln::rpc
