// Features: one row per store, of the documented length, the same every
// time, and moving the way the schedule moves the program.
#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/features.h"
#include "ops/workload.h"
#include "support/example_schedules.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"

namespace kiln::costmodel {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

ProgramFeatures features_of(const PrimFunc& f) { return extract_features(lower_to_loops(f)); }

float at(const ProgramFeatures& p, int row, int column) {
  return p.rows[static_cast<size_t>(row) * p.length + column];
}

// The row of the store into `C` that accumulates (the one with a float multiply-add).
int accumulate_row(const ProgramFeatures& p) {
  for (int r = 0; r < p.num_rows(); ++r)
    if (at(p, r, 2) > 0) return r;
  return -1;
}

TEST(Features, OneRowPerStoreOfTheDocumentedLength) {
  // Unscheduled matmul: the init store and the update store.
  ProgramFeatures p = features_of(workload("matmul:M=16,N=16,K=16"));
  EXPECT_EQ(p.length, kFeatureLength);
  EXPECT_EQ(p.num_rows(), 2);
  EXPECT_EQ(p.rows.size(), static_cast<size_t>(2 * kFeatureLength));
  for (float v : p.rows) EXPECT_TRUE(std::isfinite(v));
  // softmax: max, exp-sum, divide (and their inits).
  EXPECT_GE(features_of(workload("softmax:M=4,N=32")).num_rows(), 3);
}

TEST(Features, TheSameProgramGivesTheSameFeatures) {
  PrimFunc f = workload("conv2d_nchw:N=1,C=4,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1");
  EXPECT_EQ(features_of(f).rows, features_of(f).rows);
  EXPECT_EQ(features_of(f).rows, extract_features(lower_to_loops(workload("conv2d_nchw:N=1,C=4,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1"))).rows);
}

TEST(Features, CountsScaleWithTheLoops) {
  // 16^3 multiply-adds against 32^3: one more in log2 per doubled axis.
  ProgramFeatures small = features_of(workload("matmul:M=16,N=16,K=16"));
  ProgramFeatures big = features_of(workload("matmul:M=32,N=32,K=32"));
  int rs = accumulate_row(small), rb = accumulate_row(big);
  ASSERT_GE(rs, 0);
  ASSERT_GE(rb, 0);
  EXPECT_NEAR(at(small, rs, 2), std::log2(1 + 4096.0), 1e-4);
  EXPECT_NEAR(at(big, rb, 2), std::log2(1 + 32768.0), 1e-4);
}

TEST(Features, ScheduleDecisionsShowInTheRow) {
  PrimFunc f = workload("matmul:M=64,N=64,K=64");
  Schedule sch(f);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> l = sch.get_loops(c);
  std::vector<LoopRV> j = sch.split(l[1], {kInfer, 16});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.parallel(l[0]);
  sch.vectorize(j[1]);
  ProgramFeatures before = features_of(f), after = features_of(sch.func());
  int rb = accumulate_row(before), ra = accumulate_row(after);
  ASSERT_GE(rb, 0);
  ASSERT_GE(ra, 0);
  const int loops = 11;
  // Before: no parallel or vectorized loop.
  EXPECT_EQ(at(before, rb, loops + 3), 0.0f);  // parallel loops
  EXPECT_EQ(at(before, rb, loops + 7), 0.0f);  // vectorized loops
  // After: one of each, the parallel one of extent 64, the vector 16 wide and innermost.
  EXPECT_EQ(at(after, ra, loops + 3), 1.0f);
  EXPECT_NEAR(at(after, ra, loops + 4), std::log2(65.0), 1e-4);
  EXPECT_EQ(at(after, ra, loops + 7), 1.0f);
  EXPECT_NEAR(at(after, ra, loops + 9), std::log2(17.0), 1e-4);
  EXPECT_EQ(at(after, ra, loops + 16), 1.0f);
  // The same arithmetic either way.
  EXPECT_EQ(at(before, rb, 2), at(after, ra, 2));
}

TEST(Features, StridesAndReuseOfTheOperands) {
  // C[i, j] += A[i, k] * B[k, j] with loops i, j, k: B moves by N per k
  // step, A by 1; A is reused across j, C across k.
  ProgramFeatures p = features_of(workload("matmul:M=8,N=32,K=16"));
  int r = accumulate_row(p);
  ASSERT_GE(r, 0);
  const int buffers = 29, slot = 15;
  bool saw_strided = false, saw_unit = false;
  for (int s = 0; s < 5; ++s) {
    float inner_stride = at(p, r, buffers + slot * s + 7);
    if (std::abs(inner_stride - std::log2(33.0)) < 1e-4) saw_strided = true;  // B[k, j] along k
    if (std::abs(inner_stride - 1.0) < 1e-4) saw_unit = true;                 // A[i, k] along k
  }
  EXPECT_TRUE(saw_strided);
  EXPECT_TRUE(saw_unit);
}

}  // namespace
}  // namespace kiln::costmodel

namespace kiln::costmodel {
namespace {

TEST(Features, AGpuScheduleShowsItsLaunchAndSharedMemory) {
  PrimFunc f = workload("matmul:M=128,N=128,K=64");
  ProgramFeatures gpu = features_of(apply_trace(testing::example_trace("matmul_gpu.json"), f).func());
  const int r = accumulate_row(gpu);
  ASSERT_GE(r, 0);
  const int g = kFeatureLength - 8;  // the GPU group
  EXPECT_FLOAT_EQ(at(gpu, r, g + 0), std::log2(1.0f + 4));    // 4 blocks of 64 x 64
  EXPECT_FLOAT_EQ(at(gpu, r, g + 1), std::log2(1.0f + 256));  // 16 x 16 threads each
  EXPECT_FLOAT_EQ(at(gpu, r, g + 4), 0.0f);                    // it writes its local tile
  EXPECT_GT(at(gpu, r, g + 5), 0.0f);                          // from A and B in shared memory
  EXPECT_FLOAT_EQ(at(gpu, r, g + 6), std::log2(1.0f + 2 * 64 * 16 * 4));
  EXPECT_FLOAT_EQ(at(gpu, r, g + 7), 1.0f);                    // whole warps
  // On a CPU the group is zero.
  ProgramFeatures cpu = features_of(f);
  for (int c = g; c < kFeatureLength; ++c) EXPECT_EQ(at(cpu, accumulate_row(cpu), c), 0.0f) << c;
}

}  // namespace
}  // namespace kiln::costmodel
