// Random sequences of legal primitives on real operators: every result must
// compute what the unscheduled function computes, and replay from its trace.
// Illegal draws are part of the test: they must throw a ScheduleError and
// leave the schedule unchanged.
#include <gtest/gtest.h>

#include "schedule_harness.h"

namespace kiln {
namespace {

void random_step(Schedule& sch, RandomState& rng) {
  std::vector<BlockRV> blocks = sch.get_child_blocks(sch.get_block("root"));
  BlockRV b = blocks[rng.uniform_int(static_cast<int64_t>(blocks.size()))];
  std::vector<LoopRV> loops = sch.get_loops(b);
  if (loops.empty()) return;
  LoopRV l = loops[rng.uniform_int(static_cast<int64_t>(loops.size()))];
  switch (rng.uniform_int(14)) {
    case 0: {
      auto t = sch.sample_perfect_tile(l, 2 + static_cast<int>(rng.uniform_int(2)), 8);
      sch.split(l, std::vector<Factor>(t.begin(), t.end()));
      break;
    }
    case 1:
      sch.split(l, {kInfer, 2 + rng.uniform_int(5)});  // often not dividing
      break;
    case 2: {
      size_t i = rng.uniform_int(static_cast<int64_t>(loops.size()));
      if (i + 1 < loops.size()) sch.fuse({loops[i], loops[i + 1]});
      break;
    }
    case 3: {
      std::vector<LoopRV> order = loops;
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.uniform_int(static_cast<int64_t>(i))]);
      sch.reorder(order);
      break;
    }
    case 4: sch.parallel(l); break;
    case 5: sch.vectorize(l); break;
    case 6: sch.unroll(l); break;
    case 7: sch.decompose_reduction(b, l); break;
    case 8: sch.cache_write(b, 0, rng.uniform_int(2) ? "local" : "global"); break;
    case 9: sch.cache_read(b, static_cast<int>(rng.uniform_int(2)), "global"); break;
    case 10: {
      // Move this block to a loop of another block, whichever way is legal.
      BlockRV other = blocks[rng.uniform_int(static_cast<int64_t>(blocks.size()))];
      std::vector<LoopRV> targets = sch.get_loops(other);
      if (targets.empty()) return;
      LoopRV t = targets[rng.uniform_int(static_cast<int64_t>(targets.size()))];
      if (rng.uniform_int(2)) sch.compute_at(b, t);
      else sch.reverse_compute_at(b, t);
      break;
    }
    case 11: sch.compute_inline(b); break;
    case 12: sch.reverse_compute_inline(b); break;
    case 13: {
      LoopRV at = sch.sample_compute_location(b);
      EXPECT_NO_THROW(sch.compute_at(b, at)) << "a sampled compute location was refused";
      break;
    }
  }
}

class RandomSchedules : public ::testing::TestWithParam<const char*> {};

TEST_P(RandomSchedules, MatchTheUnscheduledFunction) {
  const PrimFunc original = testing::workload_func(GetParam());
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Schedule sch(original, ScheduleOptions{seed, true});
    RandomState rng(seed * 7919);
    int failures = 0;
    for (int step = 0; step < 10; ++step) {
      PrimFunc before = sch.func();
      try {
        random_step(sch, rng);
      } catch (const ScheduleError&) {
        ++failures;
        EXPECT_TRUE(sch.func().same_as(before)) << "a failed primitive changed the function";
      }
    }
    SCOPED_TRACE(::testing::Message() << GetParam() << " seed " << seed << ", " << failures
                                      << " refused steps, trace:\n" << sch.trace().str());
    testing::expect_valid_schedule(sch, original);
    if (::testing::Test::HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, RandomSchedules,
                         ::testing::Values("matmul:M=13,N=9,K=5", "conv2d_nchw:N=1,C=3,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1",
                                           "softmax:M=5,N=7", "depthwise_conv2d_nchw:N=1,C=3,H=6,W=6,R=3,S=3,stride=2,pad=1",
                                           "dense:M=6,N=5,K=7,bias=1,act=relu"));

}  // namespace
}  // namespace kiln
