// convert_layout: convolutions in blocked channels, written as the graph
// before and after, each checked to compute what the graph did.
#include <gtest/gtest.h>

#include "graph/fuse.h"
#include "graph/layout.h"
#include "graph/onnx_import.h"
#include "graph/tasks.h"
#include "model_builder.h"
#include "ops/workload.h"
#include "same_outputs.h"
#include "tir/analysis/workload_key.h"

namespace kiln::graph {
namespace {

using testing::expect_same_outputs;
using testing::ModelBuilder;
using testing::set_int;
using testing::set_ints;

// Each node as "op(input types) -> output types", in order.
std::vector<std::string> nodes_of(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) {
    std::string s = n.op + "(";
    for (size_t i = 0; i < n.inputs.size(); ++i)
      s += (i ? ", " : "") + (n.inputs[i] == Node::kNone ? std::string("-") : type_str(g.value(n.inputs[i])));
    s += ") -> ";
    for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", " : "") + type_str(g.value(n.outputs[i]));
    out.push_back(s);
  }
  return out;
}

TEST(ChannelBlock, TheWidestPowerOfTwoUpToTheLanesThatDivides) {
  EXPECT_EQ(channel_block(64, 16), 16);
  EXPECT_EQ(channel_block(64, 8), 8);
  EXPECT_EQ(channel_block(24, 16), 8);
  EXPECT_EQ(channel_block(12, 8), 4);
  EXPECT_EQ(channel_block(3, 16), 1);
}

TEST(ChannelBlock, PaddedToWholeVectorsWhereThatAddsAtMostAQuarter) {
  // Before: 440 channels at 16 lanes were 55 blocks of 8 (half-width
  // vectors); after: 448 in 28 blocks of 16. 24 would be 32 (a third
  // more): it is one block of 24 instead (a vector and a half), and
  // where the int8 dot products want whole vectors, 3 blocks of 8.
  EXPECT_EQ(channel_blocking(440, 16).block, 16);
  EXPECT_EQ(channel_blocking(440, 16).padded, 448);
  EXPECT_EQ(channel_blocking(104, 16).padded, 112);
  EXPECT_EQ(channel_blocking(40, 16).padded, 48);
  EXPECT_EQ(channel_blocking(24, 16).block, 24);
  EXPECT_EQ(channel_blocking(24, 16).padded, 24);
  EXPECT_EQ(channel_blocking(12, 8).block, 12);
  EXPECT_EQ(channel_blocking(20, 16).block, 20);
  EXPECT_EQ(channel_blocking(18, 16).block, 2);  // not a multiple of 4
  EXPECT_EQ(channel_blocking(36, 16).block, 4);  // past two vectors
  EXPECT_EQ(channel_blocking(8, 16).block, 8);   // under one
  EXPECT_EQ(whole_vector_blocking(24, 16).block, 8);
  EXPECT_EQ(whole_vector_blocking(24, 16).padded, 24);
  EXPECT_EQ(channel_blocking(64, 16).padded, 64);
  EXPECT_EQ(channel_blocking(3, 16).block, 1);
  EXPECT_EQ(channel_blocking(3, 16).padded, 3);
}

TEST(ConvertLayout, ChannelsBetweenOneVectorAndTwoAreOneBlock) {
  // 12 channels at 8 lanes (mobilenet_v2's 24 at 16). Before: 3 blocks of
  // 4, each output a half-width vector. After: one block of 12 through
  // the projection, the depthwise convolution and the residual Add, read
  // by the expansion after them like any block.
  ModelBuilder m;
  m.input("x", {1, 16, 5, 5}).weights("wp", {12, 16, 1, 1}).weights("bp", {12}).weights("wdw", {12, 1, 3, 3});
  m.weights("we", {16, 12, 1, 1}).output("y");
  m.node("Conv", {"x", "wp", "bp"}, {"p"});
  onnx::NodeProto& dw = m.node("Conv", {"p", "wdw"}, {"d"});
  set_ints(dw, "pads", {1, 1, 1, 1});
  set_int(dw, "group", 12);
  m.node("Add", {"d", "p"}, {"a"});
  m.node("Conv", {"a", "we"}, {"y"});
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 16, 5, 5]) -> float32[1, 2, 5, 5, 8]",
                "kiln.ConvNCHWc(float32[1, 2, 5, 5, 8], float32[1, 2, 1, 1, 8, 12], float32[1, 12]) -> "
                "float32[1, 1, 5, 5, 12]",
                "kiln.DepthwiseConvNCHWc(float32[1, 1, 5, 5, 12], float32[1, 3, 3, 12]) -> float32[1, 1, 5, 5, 12]",
                "Add(float32[1, 1, 5, 5, 12], float32[1, 1, 5, 5, 12]) -> float32[1, 1, 5, 5, 12]",
                "kiln.ConvNCHWc(float32[1, 1, 5, 5, 12], float32[2, 1, 1, 1, 12, 8]) -> float32[1, 2, 5, 5, 8]",
                "kiln.FromNCHWc(float32[1, 2, 5, 5, 8]) -> float32[1, 16, 5, 5]",
            }));
  expect_same_outputs(before, after);
}

TEST(ConvertLayout, ChannelsPaddedToWholeVectorsComputeTheSame) {
  // 20 channels at 8 lanes: 24 in blocks of 8. The padded channels enter
  // as zeros (the transform, the weights, the bias), leave a Sigmoid as
  // 0.5, and every convolution reads them against zero weights; the
  // depthwise convolution keeps them; the Div leaves the blocked layout
  // (0 / 0 in them); FromNCHWc drops them.
  ModelBuilder m;
  m.input("x", {1, 20, 6, 6}).weights("w1", {20, 20, 3, 3}).weights("b1", {20}).weights("wdw", {20, 1, 3, 3});
  m.weights("w2", {8, 20, 1, 1}).output("y").output("q");
  set_ints(m.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Sigmoid", {"c1"}, {"s"});
  onnx::NodeProto& dw = m.node("Conv", {"s", "wdw"}, {"d"});
  set_ints(dw, "pads", {1, 1, 1, 1});
  set_int(dw, "group", 20);
  m.node("Add", {"d", "c1"}, {"a"});
  m.node("Conv", {"a", "w2"}, {"y"});
  m.node("Div", {"a", "c1"}, {"q"});
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 20, 6, 6]) -> float32[1, 3, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 3, 6, 6, 8], float32[3, 3, 3, 3, 8, 8], float32[3, 8]) -> "
                "float32[1, 3, 6, 6, 8]",
                "Sigmoid(float32[1, 3, 6, 6, 8]) -> float32[1, 3, 6, 6, 8]",
                "kiln.DepthwiseConvNCHWc(float32[1, 3, 6, 6, 8], float32[3, 3, 3, 8]) -> float32[1, 3, 6, 6, 8]",
                "Add(float32[1, 3, 6, 6, 8], float32[1, 3, 6, 6, 8]) -> float32[1, 3, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 3, 6, 6, 8], float32[1, 3, 1, 1, 8, 8]) -> float32[1, 1, 6, 6, 8]",
                "kiln.FromNCHWc(float32[1, 3, 6, 6, 8]) -> float32[1, 20, 6, 6]",
                "kiln.FromNCHWc(float32[1, 3, 6, 6, 8]) -> float32[1, 20, 6, 6]",
                "Div(float32[1, 20, 6, 6], float32[1, 20, 6, 6]) -> float32[1, 20, 6, 6]",
                "kiln.FromNCHWc(float32[1, 1, 6, 6, 8]) -> float32[1, 8, 6, 6]",
            }));
  expect_same_outputs(before, after);
}

TEST(ConvertLayout, GroupedConvolutionsWhoseGroupsFitTheBlocks) {
  // Before, every grouped convolution but a depthwise one kept NCHW, a
  // FromNCHWc before it and a ToNCHWc after. After: groups of 4 channels
  // (two to a block of 8; 20 channels padded to 24, the last group all
  // zeros, its bias too), groups of 16 (two blocks each, at stride 2)
  // convert; groups of 6, which neither divide a block of 8 nor are whole
  // blocks, keep NCHW.
  ModelBuilder m;
  m.input("x", {1, 20, 6, 6}).input("x2", {1, 32, 6, 6}).input("x3", {1, 24, 6, 6});
  m.weights("w1", {20, 20, 3, 3}).weights("wg1", {20, 4, 3, 3}).weights("bg1", {20});
  m.weights("wg2", {32, 16, 3, 3}).weights("wg3", {24, 6, 1, 1});
  m.output("y1").output("y2").output("y3");
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  onnx::NodeProto& g1 = m.node("Conv", {"c1", "wg1", "bg1"}, {"y1"});
  set_ints(g1, "pads", {1, 1, 1, 1});
  set_int(g1, "group", 5);
  onnx::NodeProto& g2 = m.node("Conv", {"x2", "wg2"}, {"y2"});
  set_ints(g2, "pads", {1, 1, 1, 1});
  set_ints(g2, "strides", {2, 2});
  set_int(g2, "group", 2);
  set_int(m.node("Conv", {"x3", "wg3"}, {"y3"}), "group", 4);
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 20, 6, 6]) -> float32[1, 3, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 3, 6, 6, 8], float32[3, 3, 3, 3, 8, 8]) -> float32[1, 3, 6, 6, 8]",
                "kiln.GroupedConvNCHWc(float32[1, 3, 6, 6, 8], float32[3, 1, 3, 3, 4, 8], float32[3, 8]) -> "
                "float32[1, 3, 6, 6, 8]",
                "kiln.ToNCHWc(float32[1, 32, 6, 6]) -> float32[1, 4, 6, 6, 8]",
                "kiln.GroupedConvNCHWc(float32[1, 4, 6, 6, 8], float32[4, 2, 3, 3, 8, 8]) -> float32[1, 4, 3, 3, 8]",
                "Conv(float32[1, 24, 6, 6], float32[24, 6, 1, 1]) -> float32[1, 24, 6, 6]",
                "kiln.FromNCHWc(float32[1, 3, 6, 6, 8]) -> float32[1, 20, 6, 6]",
                "kiln.FromNCHWc(float32[1, 4, 3, 3, 8]) -> float32[1, 32, 3, 3]",
            }));
  expect_same_outputs(before, after);
}

TEST(ConvertLayout, ASqueezeAndExcitationStaysBlocked) {
  // EfficientNet's and RegNet's squeeze and excitation: the global pool,
  // two 1×1 convolutions on one value per channel, and the broadcast Mul
  // by them. Before, the pool read NCHW (the whole activation transformed
  // back) and the Mul too (transformed again after it); after, the pool is
  // a ReduceMean over the blocked rows and columns and the Mul broadcasts
  // [1, C/b, 1, 1, b] over the blocked activation.
  ModelBuilder m;
  m.input("x", {1, 32, 6, 6}).weights("w1", {32, 32, 3, 3}).weights("wr", {8, 32, 1, 1}).weights("we", {32, 8, 1, 1});
  m.weights("w2", {16, 32, 1, 1}).output("y");
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  m.node("GlobalAveragePool", {"a"}, {"p"});
  m.node("Conv", {"p", "wr"}, {"r"});
  m.node("Relu", {"r"}, {"rr"});
  m.node("Conv", {"rr", "we"}, {"e"});
  m.node("Sigmoid", {"e"}, {"s"});
  m.node("Mul", {"a", "s"}, {"scaled"});
  m.node("Conv", {"scaled", "w2"}, {"y"});
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 32, 6, 6]) -> float32[1, 4, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 4, 6, 6, 8], float32[4, 4, 3, 3, 8, 8]) -> float32[1, 4, 6, 6, 8]",
                "Relu(float32[1, 4, 6, 6, 8]) -> float32[1, 4, 6, 6, 8]",
                "ReduceMean(float32[1, 4, 6, 6, 8]) -> float32[1, 4, 1, 1, 8]",
                "kiln.ConvNCHWc(float32[1, 4, 1, 1, 8], float32[1, 4, 1, 1, 8, 8]) -> float32[1, 1, 1, 1, 8]",
                "Relu(float32[1, 1, 1, 1, 8]) -> float32[1, 1, 1, 1, 8]",
                "kiln.ConvNCHWc(float32[1, 1, 1, 1, 8], float32[4, 1, 1, 1, 8, 8]) -> float32[1, 4, 1, 1, 8]",
                "Sigmoid(float32[1, 4, 1, 1, 8]) -> float32[1, 4, 1, 1, 8]",
                "Mul(float32[1, 4, 6, 6, 8], float32[1, 4, 1, 1, 8]) -> float32[1, 4, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 4, 6, 6, 8], float32[2, 4, 1, 1, 8, 8]) -> float32[1, 2, 6, 6, 8]",
                "kiln.FromNCHWc(float32[1, 2, 6, 6, 8]) -> float32[1, 16, 6, 6]",
            }));
  expect_same_outputs(before, after);
}

// A residual block: conv, relu, conv, the skip add, relu, then a global
// pool (blocked too: only its [1, 16, 1, 1] goes back to NCHW).
std::string residual_block() {
  ModelBuilder m;
  m.input("x", {1, 8, 6, 6}).weights("w1", {16, 8, 3, 3}).weights("b1", {16}).weights("w2", {16, 16, 3, 3});
  m.weights("wd", {16, 8, 1, 1}).output("y");
  set_ints(m.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  set_ints(m.node("Conv", {"a", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Conv", {"x", "wd"}, {"d"});
  m.node("Add", {"c2", "d"}, {"s"});
  m.node("Relu", {"s"}, {"r"});
  m.node("GlobalAveragePool", {"r"}, {"y"});
  return m.bytes();
}

TEST(ConvertLayout, AResidualBlockStaysBlockedBetweenItsConvolutions) {
  const Graph before = import_onnx_bytes(residual_block());
  const Graph after = convert_layout(before, 8);
  // One transform in (x, read by two convolutions), one out (after the
  // pool); weights rearranged at compile time, the bias as [K/8, 8].
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 8, 6, 6]) -> float32[1, 1, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 1, 6, 6, 8], float32[2, 1, 3, 3, 8, 8], float32[2, 8]) -> "
                "float32[1, 2, 6, 6, 8]",
                "Relu(float32[1, 2, 6, 6, 8]) -> float32[1, 2, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 2, 6, 6, 8], float32[2, 2, 3, 3, 8, 8]) -> float32[1, 2, 6, 6, 8]",
                "kiln.ConvNCHWc(float32[1, 1, 6, 6, 8], float32[2, 1, 1, 1, 8, 8]) -> float32[1, 2, 6, 6, 8]",
                "Add(float32[1, 2, 6, 6, 8], float32[1, 2, 6, 6, 8]) -> float32[1, 2, 6, 6, 8]",
                "Relu(float32[1, 2, 6, 6, 8]) -> float32[1, 2, 6, 6, 8]",
                "ReduceMean(float32[1, 2, 6, 6, 8]) -> float32[1, 2, 1, 1, 8]",
                "kiln.FromNCHWc(float32[1, 2, 1, 1, 8]) -> float32[1, 16, 1, 1]",
            }));
  expect_same_outputs(before, after);
  // Fused as in NCHW: conv+bias+relu, conv, conv+add+relu, and the two
  // transforms and the pool on their own.
  const std::string groups = groups_str(after, fuse_operators(after));
  EXPECT_NE(groups.find("= kiln.ConvNCHWc+Relu("), std::string::npos) << groups;
  EXPECT_NE(groups.find("= kiln.ConvNCHWc+Add+Relu("), std::string::npos) << groups;
}

TEST(ConvertLayout, OddChannelsDepthwiseAndAsymmetricPads) {
  // 3 input channels: a block of 1. 12 channels at 8 lanes: one block of
  // 12 (before: three of 4, and the grouped convolution, whose groups of 6
  // did not fit a block of 4, in NCHW between two transforms). A depthwise
  // convolution keeps its channels' block; groups of 6 now fit the block.
  ModelBuilder m;
  m.input("x", {1, 3, 9, 9}).weights("w1", {12, 3, 3, 3}).weights("wdw", {12, 1, 3, 3}).weights("wg", {12, 6, 1, 1});
  m.output("y");
  onnx::NodeProto& c1 = m.node("Conv", {"x", "w1"}, {"c1"});
  set_ints(c1, "pads", {0, 0, 1, 1});
  set_ints(c1, "strides", {2, 2});
  m.node("Clip", {"c1"}, {"a"});
  onnx::NodeProto& dw = m.node("Conv", {"a", "wdw"}, {"c2"});
  set_ints(dw, "pads", {1, 1, 1, 1});
  set_int(dw, "group", 12);
  onnx::NodeProto& grouped = m.node("Conv", {"c2", "wg"}, {"y"});
  set_int(grouped, "group", 2);
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 3, 9, 9]) -> float32[1, 3, 9, 9, 1]",
                "kiln.ConvNCHWc(float32[1, 3, 9, 9, 1], float32[1, 3, 3, 3, 1, 12]) -> float32[1, 1, 4, 4, 12]",
                "Clip(float32[1, 1, 4, 4, 12]) -> float32[1, 1, 4, 4, 12]",
                "kiln.DepthwiseConvNCHWc(float32[1, 1, 4, 4, 12], float32[1, 3, 3, 12]) -> float32[1, 1, 4, 4, 12]",
                "kiln.GroupedConvNCHWc(float32[1, 1, 4, 4, 12], float32[1, 1, 1, 1, 6, 12]) -> float32[1, 1, 4, 4, 12]",
                "kiln.FromNCHWc(float32[1, 1, 4, 4, 12]) -> float32[1, 12, 4, 4]",
            }));
  expect_same_outputs(before, after);
}

TEST(ConvertLayout, AResNetStemStaysBlockedThroughItsPool) {
  // Conv 7x7 stride 2 from 3 channels, Relu, MaxPool 3x3 stride 2 pad 1,
  // Conv: blocked from the first transform to the last; a pool with
  // ceil_mode (not ops/pool.h's window) would read NCHW.
  ModelBuilder m;
  m.input("x", {1, 3, 16, 16}).weights("w1", {8, 3, 7, 7}).weights("w2", {8, 8, 3, 3}).output("y");
  onnx::NodeProto& stem = m.node("Conv", {"x", "w1"}, {"c1"});
  set_ints(stem, "pads", {3, 3, 3, 3});
  set_ints(stem, "strides", {2, 2});
  m.node("Relu", {"c1"}, {"a"});
  onnx::NodeProto& pool = m.node("MaxPool", {"a"}, {"p"});
  set_ints(pool, "kernel_shape", {3, 3});
  set_ints(pool, "strides", {2, 2});
  set_ints(pool, "pads", {1, 1, 1, 1});
  set_ints(m.node("Conv", {"p", "w2"}, {"y"}), "pads", {1, 1, 1, 1});
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 3, 16, 16]) -> float32[1, 3, 16, 16, 1]",
                "kiln.ConvNCHWc(float32[1, 3, 16, 16, 1], float32[1, 3, 7, 7, 1, 8]) -> float32[1, 1, 8, 8, 8]",
                "Relu(float32[1, 1, 8, 8, 8]) -> float32[1, 1, 8, 8, 8]",
                "kiln.MaxPoolNCHWc(float32[1, 1, 8, 8, 8]) -> float32[1, 1, 4, 4, 8]",
                "kiln.ConvNCHWc(float32[1, 1, 4, 4, 8], float32[1, 1, 3, 3, 8, 8]) -> float32[1, 1, 4, 4, 8]",
                "kiln.FromNCHWc(float32[1, 1, 4, 4, 8]) -> float32[1, 8, 4, 4]",
            }));
  expect_same_outputs(before, after);
}

TEST(ConvertLayout, ThreeByThreeStrideOneOnLargeOutputsTakesWinograd) {
  // At 14×14 a 3×3 stride-1 convolution is Winograd's F(2×2, 3×3) (F(4×4,
  // 3×3) from 28×28), its weights transformed here into [4, 4, K/kb, C/cb,
  // cb, kb]; the 7×7
  // one after the stride-2 convolution stays direct, as do the stride-2
  // and the 1×1 ones.
  ModelBuilder m;
  m.input("x", {1, 8, 14, 14}).weights("w1", {16, 8, 3, 3}).weights("b1", {16}).weights("w2", {16, 16, 3, 3});
  m.weights("w3", {16, 16, 3, 3}).weights("w4", {8, 16, 1, 1}).output("y");
  set_ints(m.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  onnx::NodeProto& down = m.node("Conv", {"a", "w2"}, {"c2"});
  set_ints(down, "pads", {1, 1, 1, 1});
  set_ints(down, "strides", {2, 2});
  set_ints(m.node("Conv", {"c2", "w3"}, {"c3"}), "pads", {1, 1, 1, 1});
  m.node("Conv", {"c3", "w4"}, {"y"});
  const Graph before = import_onnx_bytes(m.bytes());
  const Graph after = convert_layout(before, 8);
  EXPECT_EQ(nodes_of(after),
            (std::vector<std::string>{
                "kiln.ToNCHWc(float32[1, 8, 14, 14]) -> float32[1, 1, 14, 14, 8]",
                "kiln.WinogradConvNCHWc(float32[1, 1, 14, 14, 8], float32[4, 4, 2, 1, 8, 8], float32[2, 8]) -> "
                "float32[1, 2, 14, 14, 8]",
                "Relu(float32[1, 2, 14, 14, 8]) -> float32[1, 2, 14, 14, 8]",
                "kiln.ConvNCHWc(float32[1, 2, 14, 14, 8], float32[2, 2, 3, 3, 8, 8]) -> float32[1, 2, 7, 7, 8]",
                "kiln.ConvNCHWc(float32[1, 2, 7, 7, 8], float32[2, 2, 3, 3, 8, 8]) -> float32[1, 2, 7, 7, 8]",
                "kiln.ConvNCHWc(float32[1, 2, 7, 7, 8], float32[1, 2, 1, 1, 8, 8]) -> float32[1, 1, 7, 7, 8]",
                "kiln.FromNCHWc(float32[1, 1, 7, 7, 8]) -> float32[1, 8, 7, 7]",
            }));
  expect_same_outputs(before, after);
  EXPECT_EQ(winograd_tile(56, 56), 4);
  EXPECT_EQ(winograd_tile(28, 28), 4);
  EXPECT_EQ(winograd_tile(14, 14), 2);
  EXPECT_EQ(winograd_tile(7, 7), 0);
}

TEST(ConvertLayout, OffWithoutLanes) {
  const Graph before = import_onnx_bytes(residual_block());
  EXPECT_EQ(convert_layout(before, 0).str(), before.str());
  EXPECT_EQ(convert_layout(before, 1).str(), before.str());
}

// A 3×3 Conv from 8 to 16 channels on a size×size input, alone in its
// group (its input's transform and the Flatten's are groups of their
// own), blocked: its task has the workload key of `kiln tune-op
// <workload>`, so either serves the other's records.
void expect_lone_conv_is_workload(int64_t size, const std::string& workload) {
  ModelBuilder m;
  m.input("x", {1, 8, size, size}).weights("w", {16, 8, 3, 3}).output("y");
  set_ints(m.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Flatten", {"c"}, {"y"});
  const Graph g = convert_layout(import_onnx_bytes(m.bytes()), 8);
  const std::vector<Task> tasks = extract_tasks(g, fuse_operators(g));
  const std::string key = workload_key(ops::build_workload(ops::parse_workload(workload)));
  bool found = false;
  for (const Task& t : tasks) found = found || t.key == key;
  EXPECT_TRUE(found) << workload << "\n" << tasks_str(tasks);
}

TEST(ConvertLayout, ALoneBlockedConvIsItsWorkload) {
  expect_lone_conv_is_workload(6, "conv2d_nchwc:N=1,C=8,H=6,W=6,K=16,R=3,S=3,stride=1,pad=1,cb=8,kb=8");
  // At 15×15, Winograd's.
  expect_lone_conv_is_workload(15, "conv2d_winograd_nchwc:N=1,C=8,H=15,W=15,K=16,pad=1,cb=8,kb=8,m=2");
}

}  // namespace
}  // namespace kiln::graph
