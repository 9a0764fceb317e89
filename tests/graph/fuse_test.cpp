// Operator fusion on small graphs, written as the groups it makes.
#include <gtest/gtest.h>

#include "graph/fuse.h"
#include "graph/onnx_import.h"
#include "model_builder.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;

std::string fused(const ModelBuilder& m) {
  Graph g = import_onnx_bytes(m.bytes());
  return groups_str(g, fuse_operators(g));
}

// Batch normalization parameters p_scale, p_bias, p_mean, p_var of `c` channels.
void bn_params(ModelBuilder& m, const std::string& p, int64_t c) {
  m.weights(p + "_scale", {c}).weights(p + "_bias", {c}).weights(p + "_mean", {c});
  m.weights(p + "_var", {c});
}

TEST(Fuse, AResidualBlockIsTwoGroups) {
  // Before: seven nodes. After: two functions, each a convolution and
  // the elementwise chain after it; the second takes the skip input %x.
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6}).weights("w1", {4, 4, 3, 3}).weights("w2", {4, 4, 3, 3}).output("y");
  bn_params(m, "bn1", 4);
  bn_params(m, "bn2", 4);
  testing::set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c1", "bn1_scale", "bn1_bias", "bn1_mean", "bn1_var"}, {"b1"});
  m.node("Relu", {"b1"}, {"r1"});
  testing::set_ints(m.node("Conv", {"r1", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c2", "bn2_scale", "bn2_bias", "bn2_mean", "bn2_var"}, {"b2"});
  m.node("Add", {"b2", "x"}, {"s"});
  m.node("Relu", {"s"}, {"y"});
  EXPECT_EQ(fused(m),
            "%r1 = Conv+BatchNormalization+Relu(%x, %w1, %bn1_scale, %bn1_bias, %bn1_mean, %bn1_var)\n"
            "%y = Conv+BatchNormalization+Add+Relu(%r1, %w2, %bn2_scale, %bn2_bias, %bn2_mean, %bn2_var, %x)\n");
}

// A MobileNet block's depthwise 3x3 (8 channels of 6x6 floats: 1152
// bytes out) and its 1x1 projection with the residual add, under
// `options`.
std::string mobilenet_tail(const FuseOptions& options) {
  ModelBuilder m;
  m.input("x", {1, 8, 6, 6}).input("skip", {1, 4, 6, 6}).weights("wd", {8, 1, 3, 3}).weights("wp", {4, 8, 1, 1});
  m.scalar_float("lo", 0.0f).scalar_float("hi", 6.0f).output("y");
  onnx::NodeProto& dw = m.node("Conv", {"x", "wd"}, {"d"});
  testing::set_ints(dw, "pads", {1, 1, 1, 1});
  testing::set_int(dw, "group", 8);
  m.node("Clip", {"d", "lo", "hi"}, {"dc"});
  m.node("Conv", {"dc", "wp"}, {"p"});
  m.node("Add", {"p", "skip"}, {"y"});
  Graph g = import_onnx_bytes(m.bytes());
  return groups_str(g, fuse_operators(g, options));
}

TEST(Fuse, ADepthwiseConvolutionTakesItsProjectionWhenItsOutputIsLarge) {
  // Before: the depthwise convolution's output goes to memory between two
  // groups. After, from 1152 bytes on: one group, the projection and its
  // residual add in the depthwise convolution's chain.
  EXPECT_EQ(mobilenet_tail({}),
            "%dc = Conv+Clip(%x, %wd, %lo, %hi)\n"
            "%y = Conv+Add(%dc, %wp, %skip)\n");
  EXPECT_EQ(mobilenet_tail({.depthwise_output_bytes = 1153}), mobilenet_tail({}));
  EXPECT_EQ(mobilenet_tail({.depthwise_output_bytes = 1152}), "%y = Conv+Clip+Conv+Add(%x, %wd, %lo, %hi, %wp, %skip)\n");
}

TEST(Fuse, AValueReadTwiceOrReshapedEndsTheChain) {
  // %r is read twice by one node, and %m by two: neither joins; the
  // flatten after the anchor is no elementwise node.
  ModelBuilder m;
  m.input("x", {2, 3}).weights("w", {3, 4}).output("y").output("z").output("f");
  m.node("MatMul", {"x", "w"}, {"h"});
  m.node("Relu", {"h"}, {"r"});
  m.node("Mul", {"r", "r"}, {"m"});
  m.node("Sigmoid", {"m"}, {"y"});
  m.node("Tanh", {"m"}, {"z"});
  m.node("Flatten", {"r"}, {"f"});
  EXPECT_EQ(fused(m),
            "%r = MatMul+Relu(%x, %w)\n"
            "%m = Mul(%r)\n"
            "%y = Sigmoid(%m)\n"
            "%z = Tanh(%m)\n"
            "%f = Flatten(%r)\n");
}

TEST(Fuse, DataMovementChainsTogetherAndFoldedNodesAreNoGroup) {
  // Shape folds at import; the reshape, transpose and activation after it
  // are one function.
  ModelBuilder m;
  m.input("x", {2, 3, 4}).ints("target", {6, 4}).output("y").output("s");
  m.node("Shape", {"x"}, {"s"});
  m.node("Reshape", {"x", "target"}, {"v"});
  m.node("Transpose", {"v"}, {"t"});
  m.node("Relu", {"t"}, {"y"});
  EXPECT_EQ(fused(m), "%y = Reshape+Transpose+Relu(%x, %target)\n");
  EXPECT_EQ(op_pattern(Node{"n", "Softmax", {}, {}, {}}), OpPattern::kReduction);
}

TEST(Fuse, AGroupRunsWhereItsLastNodeWas) {
  // The skip's 1x1 convolution comes after the convolution its add joins:
  // the group Conv+Add runs after it, where the Add was.
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6}).weights("w", {4, 4, 3, 3}).weights("wd", {4, 4, 1, 1}).output("y");
  testing::set_ints(m.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Conv", {"x", "wd"}, {"d"});
  m.node("Add", {"c", "d"}, {"y"});
  EXPECT_EQ(fused(m),
            "%d = Conv(%x, %wd)\n"
            "%y = Conv+Add(%x, %w, %d)\n");
}

TEST(Fuse, IndexMapsJoinTheProductTheyFeed) {
  // The head split before a batched product and the merge after it: a
  // Transpose, and a Transpose+Reshape, each read by one MatMul's group
  // alone, join it in front. The Transpose that is a graph output stays.
  ModelBuilder m;
  m.input("x", {4, 6}).ints("heads", {4, 2, 3}).ints("flat", {4, 8}).weights("w", {8, 6});
  m.output("y").output("tt");
  m.node("Reshape", {"x", "heads"}, {"h"});
  testing::set_ints(m.node("Transpose", {"h"}, {"t"}), "perm", {1, 0, 2});   // [2, 4, 3]
  testing::set_ints(m.node("Transpose", {"h"}, {"tt"}), "perm", {1, 2, 0});  // [2, 3, 4]
  m.node("MatMul", {"t", "tt"}, {"p"});                                        // [2, 4, 4]
  testing::set_ints(m.node("Transpose", {"p"}, {"o"}), "perm", {1, 0, 2});
  m.node("Reshape", {"o", "flat"}, {"of"});
  m.node("MatMul", {"of", "w"}, {"y"});
  EXPECT_EQ(fused(m),
            "%h = Reshape(%x, %heads)\n"
            "%tt = Transpose(%h)\n"
            "%p = Transpose+MatMul(%h, %tt)\n"
            "%y = Transpose+Reshape+MatMul(%p, %flat, %w)\n");
}

}  // namespace
}  // namespace kiln::graph
