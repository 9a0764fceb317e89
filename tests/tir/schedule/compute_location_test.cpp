// sample_compute_location and the location marks compute_at takes.
#include <gtest/gtest.h>

#include <set>

#include "core/arith/analyzer.h"
#include "core/structural.h"
#include "schedule_harness.h"
#include "tir/analysis/access_region.h"
#include "tir/printer.h"
#include "tir/schedule/primitive/compute_location.h"

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

// A small conv2d whose output rows and columns are split (fused, with
// `fused`): the padding stage is the block compute_at moves, its buffer the
// one the checks bound under each loop of the conv2d nest.
const char* const kSmallConv = "conv2d_nchw:N=1,C=4,H=6,W=6,K=4,R=3,S=3,stride=1,pad=1";

Schedule tiled_conv(bool fused) {
  Schedule sch = schedule_of(kSmallConv);
  std::vector<LoopRV> l = sch.get_loops(sch.get_block("conv2d_nchw"));  // i0 i1 i2 i3 rc r s
  if (fused) {
    sch.fuse({l[2], l[3]});
  } else {
    std::vector<LoopRV> h = sch.split(l[2], {3, 2});
    std::vector<LoopRV> w = sch.split(l[3], {2, 3});
    sch.reorder({h[0], w[0], h[1], w[1]});  // i0 i1 h0 w0 h1 w1 rc r s
  }
  return sch;
}

// The body of the function's root block, and the padding buffer it allocates.
const BlockNode* root_block(const Schedule& sch) { return block_of(sch.func().body()); }
Buffer pad_buffer(const Schedule& sch) { return root_block(sch)->alloc_buffers.at(0); }

std::vector<int64_t> slow_extents(const Stmt& loop, const Buffer& buf) {
  std::vector<BufferRegion> reads = detect_access_regions(loop.as<ForNode>()->body, {}, &buf).first;
  arith::Analyzer ana;
  std::vector<int64_t> out;
  for (const Range& r : reads.at(0)->region) {
    const int64_t* e = as_const_int(ana.simplify(r->extent));
    out.push_back(e ? *e : -1);
  }
  return out;
}

TEST(NestRegions, ThePaddedRowsEachLoopOfAConvNeeds) {
  Schedule sch = tiled_conv(/*fused=*/false);
  const Buffer pad = pad_buffer(sch);
  std::vector<LoopRV> l = sch.get_loops(sch.get_block("conv2d_nchw"));
  const Stmt root = root_block(sch)->body;
  NestRegions regions(root, pad, /*writes=*/false);
  // Per iteration of:          n  c  h     w
  const std::vector<std::vector<int64_t>> expected = {
      {1, 4, 8, 8},  // i0: everything the nest reads
      {1, 4, 8, 8},  // i1 (output channels): the same padded image
      {1, 4, 4, 8},  // h0: 2 output rows, and 2 rows of halo
      {1, 4, 4, 5},  // w0: 3 of their columns, and 2 of halo
      {1, 4, 3, 5},  // h1: one row
      {1, 4, 3, 3},  // w1: one output pixel, all channels
      {1, 1, 3, 3},  // rc: one input channel
      {1, 1, 1, 3},  // r: one filter row
      {1, 1, 1, 1},  // s: one element
  };
  ASSERT_EQ(l.size(), expected.size());
  for (size_t i = 0; i < l.size(); ++i) {
    SCOPED_TRACE(i);
    const Stmt loop = sch.loop_stmt(l[i], "test");
    EXPECT_EQ(regions.constant_extents(loop.as<ForNode>()), expected[i]);
    EXPECT_EQ(slow_extents(loop, pad), expected[i]);
  }
}

TEST(NestRegions, AFusedIndexIsLeftToDetectAccessRegions) {
  // pad[.., f // 6 + r, f % 6 + s]: bounding f // 6 over f takes interval
  // arithmetic on the division, which the walk leaves to
  // detect_access_regions; inside f it is fixed, and affine.
  Schedule sch = tiled_conv(/*fused=*/true);
  const Buffer pad = pad_buffer(sch);
  std::vector<LoopRV> l = sch.get_loops(sch.get_block("conv2d_nchw"));  // i0 i1 f rc r s
  const Stmt root = root_block(sch)->body;
  NestRegions regions(root, pad, /*writes=*/false);
  EXPECT_EQ(regions.constant_extents(sch.loop_stmt(l[1], "test").as<ForNode>()), std::nullopt);
  EXPECT_EQ(regions.constant_extents(sch.loop_stmt(l[3], "test").as<ForNode>()), (std::vector<int64_t>{1, 1, 3, 3}));
}

TEST(MoveChecker, SaysWhatComputeAtDoes) {
  // The checker's verdict at each loop (from the shared walk, or from
  // detect_access_regions where the walk cannot tell) is what compute_at
  // itself does there.
  for (bool fused : {false, true}) {
    Schedule probe = tiled_conv(fused);
    const size_t n = probe.get_loops(probe.get_block("conv2d_nchw")).size();
    MoveChecker checker(probe.block_location(probe.get_block("pad"), "test"), /*reverse=*/false);
    int legal = 0;
    for (size_t i = 0; i < n; ++i) {
      SCOPED_TRACE(std::to_string(fused) + " loop " + std::to_string(i));
      const bool says_legal = !checker.error_at(probe.loop_location(probe.get_loops(probe.get_block("conv2d_nchw"))[i], "test"));
      Schedule sch = tiled_conv(fused);
      bool moved = true;
      try {
        sch.compute_at(sch.get_block("pad"), sch.get_loops(sch.get_block("conv2d_nchw"))[i]);
      } catch (const ScheduleError&) {
        moved = false;
      }
      EXPECT_EQ(says_legal, moved);
      legal += moved;
      if (moved) expect_valid_schedule(sch, workload_func(kSmallConv));
    }
    EXPECT_GT(legal, 0);
  }
}

}  // namespace
}  // namespace kiln
