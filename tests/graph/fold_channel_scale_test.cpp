// fold_channel_scale: a squeeze and excitation's per-channel Mul into the
// weights of the convolutions that read it, written as the graph before
// and after, each checked to compute what the graph did.
#include <gtest/gtest.h>

#include "graph/fold_channel_scale.h"
#include "graph/layout.h"
#include "graph/onnx_import.h"
#include "model_builder.h"
#include "same_outputs.h"

namespace kiln::graph {
namespace {

using testing::expect_same_outputs;
using testing::ModelBuilder;
using testing::ops_of;

// a = Conv(x) [N, C, H, H] scaled per channel by
// Sigmoid(GlobalAveragePool(a)) (a squeeze and excitation without its 1×1
// convolutions), then a 1×1 Conv to K channels.
Graph scaled_conv(int64_t C, int64_t H, int64_t K, int64_t N = 1) {
  ModelBuilder m;
  m.input("x", {N, C, H, H}).weights("w0", {C, C, 1, 1}).weights("w", {K, C, 1, 1}).output("y");
  m.node("Conv", {"x", "w0"}, {"a"});
  m.node("GlobalAveragePool", {"a"}, {"p"});
  m.node("Sigmoid", {"p"}, {"s"});
  m.node("Mul", {"a", "s"}, {"scaled"});
  m.node("Conv", {"scaled", "w"}, {"y"});
  return import_onnx_bytes(m.bytes());
}

TEST(FoldChannelScale, TheScaleGoesIntoSmallWeights) {
  // 16 channels at 8² into 8: 128 weights against 1024 scaled elements.
  // Before, a Mul over the activation; after, a Mul over the weights.
  const Graph before = scaled_conv(16, 8, 8);
  const Graph after = fold_channel_scale(before);
  EXPECT_EQ(ops_of(before), (std::vector<std::string>{"Conv", "GlobalAveragePool", "Sigmoid", "Mul", "Conv"}));
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"Conv", "GlobalAveragePool", "Sigmoid", "Mul", "Conv"}));
  const Node& mul = after.nodes[3];
  EXPECT_EQ(after.value(mul.outputs[0]).shape, (std::vector<int64_t>{8, 16, 1, 1}));
  EXPECT_EQ(after.nodes[4].inputs[0], after.nodes[0].outputs[0]);  // the Conv reads a itself
  expect_same_outputs(before, after);
}

TEST(FoldChannelScale, BlockedTheScaleIsReshapedToTheBlockedWeights) {
  // 20 channels padded to 24 in blocks of 8: the scale [1, 3, 1, 1, 8]
  // becomes [1, 3, 1, 1, 8, 1] against weights [1, 3, 1, 1, 8, 8]; its
  // padded lanes (Sigmoid(0) = 0.5) meet zero weights.
  const Graph plain = scaled_conv(20, 8, 8);
  const Graph before = convert_layout(plain, 8);
  const Graph after = fold_channel_scale(before);
  EXPECT_EQ(ops_of(before), (std::vector<std::string>{kToNCHWc, kConvNCHWc, "ReduceMean", "Sigmoid", "Mul",
                                                      kConvNCHWc, kFromNCHWc}));
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{kToNCHWc, kConvNCHWc, "ReduceMean", "Sigmoid", "Reshape", "Mul",
                                                     kConvNCHWc, kFromNCHWc}));
  EXPECT_EQ(after.value(after.nodes[5].outputs[0]).shape, (std::vector<int64_t>{1, 3, 1, 1, 8, 8}));
  expect_same_outputs(plain, after);
}

TEST(FoldChannelScale, LeftWhereItDoesNotPayOrDoesNotHold) {
  // Weights as many as the elements (64 channels at 2² into 64), a batch
  // of two (a scale per image), a reader that is not a convolution: as
  // they were.
  const Graph big = scaled_conv(64, 2, 64);
  EXPECT_EQ(fold_channel_scale(big).str(), big.str());
  const Graph batch = scaled_conv(16, 8, 8, 2);
  EXPECT_EQ(fold_channel_scale(batch).str(), batch.str());
  ModelBuilder m;
  m.input("x", {1, 16, 8, 8}).weights("w", {8, 16, 1, 1}).output("y").output("scaled");
  m.node("GlobalAveragePool", {"x"}, {"p"});
  m.node("Mul", {"x", "p"}, {"scaled"});  // a graph output besides the Conv's data
  m.node("Conv", {"scaled", "w"}, {"y"});
  const Graph read_outside = import_onnx_bytes(m.bytes());
  EXPECT_EQ(fold_channel_scale(read_outside).str(), read_outside.str());
}

}  // namespace
}  // namespace kiln::graph
