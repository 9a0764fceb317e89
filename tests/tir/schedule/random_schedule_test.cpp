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
  switch (rng.uniform_int(17)) {
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
    case 11: {
      // Factor the reduction (often over the innermost loop, a reduction
      // loop in most reduction blocks); the factored loop, the rf block's
      // now, feeds only a spatial axis, so it can run in parallel or as a vector.
      LoopRV r = rng.uniform_int(2) ? loops.back() : l;
      sch.rfactor(r, static_cast<int>(rng.uniform_int(3)));
      if (rng.uniform_int(2)) sch.parallel(r);
      else if (rng.uniform_int(2)) sch.vectorize(r);
      break;
    }
    case 12:
      sch.storage_align(b, 0, static_cast<int>(rng.uniform_int(3)), 1 + rng.uniform_int(8), rng.uniform_int(4));
      break;
    case 13: sch.compute_inline(b); break;
    case 14: sch.reverse_compute_inline(b); break;
    case 15: {
      LoopRV at = sch.sample_compute_location(b);
      EXPECT_NO_THROW(sch.compute_at(b, at)) << "a sampled compute location was refused";
      break;
    }
    case 16: {
      // Re-lay out what the block writes: swap its first two axes, or split
      // its last one in two (refused for a parameter).
      const BlockNode* blk = block_of(sch.block_stmt(b, "transform_layout"));
      const int ndim = blk->writes.empty() ? 0 : blk->writes[0].buffer().ndim();
      if (ndim == 0) break;
      std::vector<std::string> in, out;
      for (int d = 0; d < ndim; ++d) in.push_back("a" + std::to_string(d));
      out = in;
      if (ndim >= 2 && rng.uniform_int(2)) {
        std::swap(out[0], out[1]);
      } else {
        out.back() = in.back() + " // 2";
        out.push_back(in.back() + " % 2");
      }
      auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
      };
      sch.transform_layout(b, BufferRole::kWrite, 0, "lambda " + join(in) + ": (" + join(out) + ")");
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
