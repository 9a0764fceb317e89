// sample_compute_location and the location marks compute_at takes.
#include <gtest/gtest.h>

#include <set>

#include "core/structural.h"
#include "schedule_harness.h"
#include "tir/printer.h"

namespace kiln {
namespace {

using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

const char* const kDense = "dense:M=6,N=8,K=5,bias=1,act=relu";

// The decision of the schedule's last instruction.
int64_t last_decision(const Schedule& sch) {
  return std::get<LocationDecision>(sch.trace().instructions().back().decision).location;
}

TEST(SampleComputeLocation, CandidatesOfAnElementwiseStage) {
  // bias_add can be inlined, stay, or go under either loop of relu; not
  // under dense's loops, which come before it.
  for (int64_t d : {-2, -1, 0, 1}) {
    SCOPED_TRACE(d);
    Schedule sch = schedule_of(kDense);
    BlockRV b = sch.get_block("bias_add");
    std::vector<LoopRV> relu_loops = sch.get_loops(sch.get_block("relu"));
    LoopRV at = sch.sample_compute_location(b, d);
    if (d >= 0) {
      EXPECT_FALSE(sch.location_mark(at));
      EXPECT_TRUE(sch.loop_var(at).same_as(sch.loop_var(relu_loops[d])));
    } else {
      EXPECT_EQ(sch.location_mark(at), d == -2 ? LocationMark::kInline : LocationMark::kRoot);
    }
    PrimFunc before = sch.func();
    sch.compute_at(b, at);
    if (d == -1) {
      EXPECT_TRUE(sch.func().same_as(before));
    }
    if (d == -2) {
      EXPECT_EQ(to_string(sch.func()).find("bias_add"), std::string::npos);
    }
    expect_valid_schedule(sch, workload_func(kDense));
  }
}

TEST(SampleComputeLocation, DrawsEveryCandidate) {
  std::set<int64_t> seen;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Schedule sch = schedule_of(kDense, seed);
    sch.sample_compute_location(sch.get_block("bias_add"));
    seen.insert(last_decision(sch));
  }
  EXPECT_EQ(seen, (std::set<int64_t>{-2, -1, 0, 1}));
}

TEST(SampleComputeLocation, ReductionIsNotInlined) {
  // dense cannot be inlined, and its only reader's loops are both legal.
  std::set<int64_t> seen;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    Schedule sch = schedule_of(kDense, seed);
    sch.sample_compute_location(sch.get_block("dense"));
    seen.insert(last_decision(sch));
  }
  EXPECT_EQ(seen, (std::set<int64_t>{-1, 0, 1}));
}

TEST(SampleComputeLocation, ConvPaddingInlined) {
  const char* w = "conv2d_nchw:N=1,C=2,H=5,W=5,K=2,R=3,S=3,stride=1,pad=1";
  Schedule sch = schedule_of(w);
  BlockRV pad = sch.get_block("pad");
  sch.compute_at(pad, sch.sample_compute_location(pad, -2));
  Schedule direct = schedule_of(w);
  direct.compute_inline(direct.get_block("pad"));
  EXPECT_TRUE(structural_equal(sch.func(), direct.func()));
  expect_valid_schedule(sch, workload_func(w));
}

TEST(SampleComputeLocation, ReplayWithAnotherDecisionMovesTheBlock) {
  Schedule sch = schedule_of(kDense);
  BlockRV b = sch.get_block("bias_add");
  sch.compute_at(b, sch.sample_compute_location(b, -1));
  for (int64_t d : {-2, 0, 1}) {
    SCOPED_TRACE(d);
    Trace t = sch.trace().with_decision(1, LocationDecision{d});
    Schedule moved = apply_trace(t, workload_func(kDense), ScheduleOptions{5, true});
    EXPECT_FALSE(structural_equal(moved.func(), sch.func()));
    expect_valid_schedule(moved, workload_func(kDense));
  }
}

TEST(SampleComputeLocation, ReverseComputeAtTakesTheMarks) {
  Schedule sch = schedule_of(kDense);
  BlockRV relu = sch.get_block("relu");
  PrimFunc before = sch.func();
  sch.reverse_compute_at(relu, sch.sample_compute_location(relu, -1));
  EXPECT_TRUE(sch.func().same_as(before));
  sch.reverse_compute_at(relu, sch.sample_compute_location(sch.get_block("bias_add"), -2));
  Schedule direct = schedule_of(kDense);
  direct.reverse_compute_inline(direct.get_block("relu"));
  EXPECT_TRUE(structural_equal(sch.func(), direct.func()));
  expect_valid_schedule(sch, workload_func(kDense));
}

TEST(SampleComputeLocation, DecisionThatDoesNotFitIsRefused) {
  Schedule sch = schedule_of(kDense);
  for (int64_t d : {-3, 2}) EXPECT_THROW(sch.sample_compute_location(sch.get_block("bias_add"), d), DecisionError);
  try {
    sch.sample_compute_location(sch.get_block("dense"), -2);
    FAIL() << "expected DecisionError";
  } catch (const DecisionError& e) {
    EXPECT_STREQ(e.what(),
                 "sample_compute_location: decision -2 is not a location of block 'dense', which has 2 legal loops "
                 "and cannot be inlined");
  }
  EXPECT_EQ(sch.trace().size(), 3u);  // only the get_block calls
}

TEST(SampleComputeLocation, OtherPrimitivesRefuseAMark) {
  Schedule sch = schedule_of(kDense);
  LoopRV root = sch.sample_compute_location(sch.get_block("bias_add"), -1);
  try {
    sch.split(root, {kInfer, 2});
    FAIL() << "expected BadArgumentError";
  } catch (const BadArgumentError& e) {
    EXPECT_STREQ(e.what(), "split: the handle names the location 'root', not a loop");
  }
  EXPECT_THROW(sch.loop_var(root), BadArgumentError);
}

}  // namespace
}  // namespace kiln
