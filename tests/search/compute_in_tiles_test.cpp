// compute_in_tiles: a MobileNet block's depthwise convolution computed in
// the tiles of the 1x1 projection that reads it, each candidate checked
// against the interpreter.
#include <gtest/gtest.h>

#include "core/structural.h"
#include "graph/fuse.h"
#include "graph/layout.h"
#include "graph/model_builder.h"
#include "graph/onnx_import.h"
#include "graph/tasks.h"
#include "search/block_info.h"
#include "search/sample.h"
#include "search/space.h"
#include "search/rules/rules.h"
#include "tir/analysis/unclamp.h"
#include "support/kernel_check.h"
#include "tir/schedule/locate.h"

namespace kiln::search {
namespace {

using graph::testing::ModelBuilder;

// A depthwise 3x3 (8 channels) at `stride` + Clip, then a 1x1
// projection (8 -> 4 channels), on an image of `size` x `size`: one group
// (graph/fuse.h, whatever the size of the depthwise output), and its
// function.
PrimFunc depthwise_and_projection(int64_t size, int64_t stride, int64_t lanes = 0, int64_t out = 4) {
  ModelBuilder m;
  m.input("x", {1, 8, size, size}).weights("wd", {8, 1, 3, 3}).weights("wp", {out, 8, 1, 1}).output("y");
  m.scalar_float("lo", 0.0f).scalar_float("hi", 6.0f);
  onnx::NodeProto& dw = m.node("Conv", {"x", "wd"}, {"d"});
  graph::testing::set_ints(dw, "pads", {1, 1, 1, 1});
  graph::testing::set_ints(dw, "strides", {stride, stride});
  graph::testing::set_int(dw, "group", 8);
  m.node("Clip", {"d", "lo", "hi"}, {"dc"});
  m.node("Conv", {"dc", "wp"}, {"y"});
  graph::Graph g = graph::import_onnx_bytes(m.bytes());
  if (lanes) g = graph::convert_layout(g, lanes);
  const std::vector<graph::FusedGroup> groups = graph::fuse_operators(g, {.depthwise_output_bytes = 0});
  if (!lanes) EXPECT_EQ(graph::groups_str(g, groups), "%y = Conv+Clip+Conv(%x, %wd, %lo, %hi, %wp)\n");
  for (const graph::FusedGroup& gr : groups)
    if (gr.nodes.size() == 3) {
      const PrimFunc f = graph::group_function(g, gr).func;
      return PrimFunc("block", f.params(), f.body(), f->attrs);  // "kiln.ConvNCHWc_..." names no C function
    }
  ADD_FAILURE() << graph::groups_str(g, groups);
  return graph::group_function(g, groups.back()).func;
}

SpaceParams avx2() { return SpaceParams::for_target(Target::parse("llvm -mcpu=haswell -num-cores=2")); }

std::vector<Trace> in_tiles(const std::vector<Trace>& sketches) {
  std::vector<Trace> out;
  for (const Trace& t : sketches)
    if (t.str().find(kCoverRegionAnn) != std::string::npos) out.push_back(t);
  return out;
}

TEST(ComputeInTiles, TheDepthwiseConvolutionIsTheProjectionsProducer) {
  const PrimFunc f = depthwise_and_projection(8, 1);
  EXPECT_EQ(producers_in_tiles(f).size(), 1u);
  const std::vector<Trace> sketches = design_space(f, avx2());
  // Under the projection's last S0 loop and its last S1 loop, its last one
  // or two spatial loops under its window (four sketches per sketch of
  // the projection's tiling), beside the
  // sketches that tile both at the root: the depthwise convolution's block
  // moves with its epilogue and its input's padding inlined, and no factor
  // is drawn for it (its part's size follows the projection's tiles).
  const std::vector<Trace> moved = in_tiles(sketches);
  ASSERT_GE(moved.size(), 4u);
  EXPECT_EQ(moved.size() % 4, 0u);
  EXPECT_LT(moved.size(), sketches.size());
  for (const Trace& t : moved) {
    EXPECT_NE(t.str().find("compute_at"), std::string::npos) << t.str();
    EXPECT_NE(t.str().find("compute_inline"), std::string::npos) << t.str();
  }
}

// Every candidate drawn from each sketch that computes the depthwise
// convolution in the tiles runs and matches the interpreter (partial
// tiles at the image's edges compute rows the box predicates off), and
// its trace replays.
void expect_in_tiles_correct(int64_t size, int64_t stride, int64_t lanes = 0) {
  const PrimFunc f = depthwise_and_projection(size, stride, lanes);
  const testing::SameResults same(f);
  const std::vector<Trace> sketches = in_tiles(design_space(f, avx2()));
  ASSERT_FALSE(sketches.empty());
  int drawn = 0;
  for (size_t s = 0; s < sketches.size(); ++s) {
    for (int d = 0; d < 12 && drawn < 3 * static_cast<int>(s + 1); ++d) {
      SampleFailure why;
      std::optional<Candidate> c = sample_candidate(f, sketches[s], 1000 * s + d, &why);
      if (!c) continue;  // a draw whose tile the part cannot be boxed in
      ++drawn;
      same.expect(c->func);
      std::optional<Candidate> again = replay_candidate(f, c->trace, &why);
      ASSERT_TRUE(again) << why.message;
      EXPECT_TRUE(structural_equal(again->func, c->func)) << c->trace.str();
    }
  }
  EXPECT_GE(drawn, 2) << "too few draws of the sketches succeed";
}

// In every candidate, the depthwise part is computed once per pixel:
// every loop around it that runs more than once moves the pixels the
// projection reads, none runs over the projection's output channels
// (32 of them here, which the draws split into tiles).
TEST(ComputeInTiles, ThePartIsComputedOncePerPixel) {
  const PrimFunc f = depthwise_and_projection(8, 1, 0, 32);
  const std::vector<Trace> sketches = in_tiles(design_space(f, avx2()));
  ASSERT_FALSE(sketches.empty());
  int checked = 0;
  for (size_t s = 0; s < sketches.size(); ++s)
    for (int d = 0; d < 4; ++d) {
      SampleFailure why;
      std::optional<Candidate> c = sample_candidate(f, sketches[s], 100 * s + d, &why);
      if (!c) continue;
      const PrimFunc& g = c->func;
      std::string part, epilogue, consumer;
      for (const std::string& name : blocks_in_order(g)) {
        const BlockInfo info = block_info(g, name);
        if (!info.block->annotations.count(kCoverRegionAnn)) continue;
        (info.has_reduce ? part : epilogue) = name;
      }
      ASSERT_FALSE(part.empty() || epilogue.empty()) << c->trace.str();
      const std::vector<std::string> users = consumers(g, epilogue);
      ASSERT_EQ(users.size(), 1u);
      consumer = users[0];
      const std::vector<Stmt> around = enclosing_loops(*locate_block(g.body(), part));
      const std::vector<Stmt> above = enclosing_loops(*locate_block(g.body(), consumer));
      const std::vector<bool> changes = read_changes_with_loops(g, consumer, epilogue);
      for (size_t i = 0; i < around.size() && i < above.size() && around[i].same_as(above[i]); ++i) {
        const int64_t* extent = as_const_int(around[i].as<ForNode>()->extent);
        EXPECT_TRUE(changes[i] || (extent && *extent == 1))
            << "loop " << around[i].as<ForNode>()->loop_var->name << " computes the part again\n"
            << c->trace.str();
      }
      ++checked;
    }
  EXPECT_GE(checked, 4);
}

TEST(ComputeInTiles, CandidatesAtStride1) { expect_in_tiles_correct(8, 1); }
TEST(ComputeInTiles, CandidatesAtStride2) { expect_in_tiles_correct(9, 2); }
TEST(ComputeInTiles, CandidatesAtAnOddSize) { expect_in_tiles_correct(7, 1); }
TEST(ComputeInTiles, CandidatesInBlockedChannels) { expect_in_tiles_correct(8, 2, 4); }

}  // namespace
}  // namespace kiln::search
