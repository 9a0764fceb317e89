// Which way the threads split a kernel's work: the S0 tiles of a tiled
// block, and the loops of a padding stage, ordered so that the first one
// (what the threads divide between them) splits what is read the most.
#include <gtest/gtest.h>

#include "ops/workload.h"
#include "search/rules/rules.h"
#include "search/space_params.h"
#include "tir/schedule/locate.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

SpaceParams avx512() { return SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2")); }

// The names of the loops above `block`, outermost first.
std::vector<std::string> loops_above(const PrimFunc& f, const std::string& block) {
  std::optional<Located> loc = locate_block(f.body(), block);
  EXPECT_TRUE(loc) << block;
  std::vector<std::string> out;
  if (!loc) return out;
  for (const Stmt& l : enclosing_loops(*loc)) out.push_back(l.as<ForNode>()->loop_var->name);
  return out;
}

// For each sketch multi-level tiling makes of `block` in `workload`: the
// loops above the block, outermost first.
std::vector<std::vector<std::string>> tiled_loops(const std::string& workload_text, const std::string& block) {
  std::vector<std::vector<std::string>> out;
  for (const Schedule& s : multi_level_tiling(Schedule(workload(workload_text)), block, avx512()))
    out.push_back(loops_above(s.func(), block));
  EXPECT_FALSE(out.empty()) << workload_text;
  return out;
}

TEST(ThreadSplit, TheTiledConvolutionSplitsRowsWhereTheInputWeighsMoreAndChannelsWhereTheWeightsDo) {
  // conv2d in blocked channels, loops n, k (output-channel blocks), p, q
  // (output rows, columns), then the 16 channels of a block. Layer 1 of
  // resnet18: 861 KB of padded input, 147 KB of weights. Before: the S0
  // tiles in that order, the threads splitting output-channel blocks, so
  // each reads all of the input, half of it written by the other thread
  // one kernel before. After: the rows first (then the columns, n, and the
  // channel loops last), each thread reading the rows it wrote.
  for (const std::vector<std::string>& above :
       tiled_loops("conv2d_nchwc:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,cb=16,kb=16", "conv2d_nchwc")) {
    ASSERT_GE(above.size(), 5u);
    EXPECT_EQ(above[0], "i2_0");
    EXPECT_EQ(above[1], "i3_0");
    EXPECT_EQ(above[2], "i0_0");
    // The channel loops, which index only the weights, last: the 16
    // channels of a block (S0 tile of the vector axis), then the blocks.
    EXPECT_EQ(above[3], "i4_0");
    EXPECT_EQ(above[4], "i1_0");
  }
  // Layer 4: 130 KB of input, 9.4 MB of weights. The output-channel blocks
  // go first, each thread streaming half of the weights.
  for (const std::vector<std::string>& above :
       tiled_loops("conv2d_nchwc:N=1,C=512,H=7,W=7,K=512,R=3,S=3,stride=1,pad=1,cb=16,kb=16", "conv2d_nchwc")) {
    ASSERT_GE(above.size(), 1u);
    EXPECT_EQ(above[0], "i1_0");
  }
}

TEST(ThreadSplit, ADepthwiseConvolutionSplitsRowsAsThePointwiseOnesAroundItDo) {
  // mobilenet_v2's first expansion: 96 channels at 112², 4.8 MB of input,
  // 3.5 KB of weights. Splitting the channel blocks would split both, the
  // rows only the input; the weights are too small to count, so the
  // longer loop, the rows, goes first, as in the 1x1 convolution that
  // wrote this input and the one that reads the output.
  for (const std::vector<std::string>& above : tiled_loops(
           "depthwise_conv2d_nchwc:N=1,C=96,H=112,W=112,R=3,S=3,stride=1,pad=1,b=16", "depthwise_conv2d_nchwc")) {
    ASSERT_GE(above.size(), 1u);
    EXPECT_EQ(above[0], "i2_0");
  }
}

TEST(ThreadSplit, ThePaddingStageSplitsItsRowsToo) {
  // Before: pad[n, c, h, w, c16] in that order, the threads splitting the
  // channel blocks. After: the rows outermost (the longest of the loops
  // that split the input equally), the rest as they were.
  const PrimFunc f = workload("conv2d_nchwc:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,cb=16,kb=16");
  EXPECT_EQ(loops_above(f, "pad"), (std::vector<std::string>{"i0", "i1", "i2", "i3", "i4"}));
  Schedule s(f);
  order_thread_split(s);
  EXPECT_EQ(loops_above(s.func(), "pad"), (std::vector<std::string>{"i2", "i0", "i1", "i3", "i4"}));
  // A block that already splits what it reads the most is left as it is,
  // and nothing is recorded for it.
  Schedule again(s.func());
  order_thread_split(again);
  EXPECT_TRUE(again.trace().instructions().empty());
}

}  // namespace
}  // namespace kiln::search
