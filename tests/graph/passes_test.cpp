// Graph passes: batch normalization folded into the weights before it,
// dead nodes dropped, each written as the graph before and after and
// checked to compute the same outputs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "graph/fuse.h"
#include "graph/onnx_import.h"
#include "graph/pad_attention.h"
#include "graph/pad_dense.h"
#include "graph/recognize.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "model_builder.h"
#include "same_outputs.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::ops_of;
using testing::expect_same_outputs;
using testing::set_int;
using testing::set_ints;

// Scale, bias, mean and a positive variance for `c` channels.
void bn_params(ModelBuilder& m, int64_t c) {
  m.weights("s", {c}).weights("B", {c}).weights("mean", {c});
  m.weights("var_raw", {c});
}

TEST(FoldBatchNorm, IntoTheConvolutionBeforeIt) {
  // Before: Conv -> BatchNormalization -> Relu. After: Conv -> Relu, the
  // normalization in the convolution's weights and a new bias.
  ModelBuilder m;
  m.input("x", {1, 3, 5, 5}).weights("w", {4, 3, 3, 3}).weights("b", {4}).output("y");
  bn_params(m, 4);
  m.node("Mul", {"var_raw", "var_raw"}, {"var"});  // folded at import: a constant, not negative
  set_ints(m.node("Conv", {"x", "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c", "s", "B", "mean", "var"}, {"n"});
  m.node("Relu", {"n"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const Graph folded = run_passes(g);
  EXPECT_EQ(ops_of(folded), (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(folded.nodes[0].outputs[0], g.value_id("n"));
  expect_same_outputs(g, folded);
}

TEST(FoldBatchNorm, IntoAGemmAndNotWhereTheValueIsReadTwice) {
  // The Gemm's normalized output is folded; the Conv's output is also
  // read by the Add, so normalizing it in the weights would change the
  // Add: it stays.
  ModelBuilder m;
  m.input("x", {2, 6}).weights("fc", {4, 6}).weights("fc_b", {4}).output("y");
  bn_params(m, 4);
  m.node("Mul", {"var_raw", "var_raw"}, {"var"});
  set_int(m.node("Gemm", {"x", "fc", "fc_b"}, {"h"}), "transB", 1);
  m.node("BatchNormalization", {"h", "s", "B", "mean", "var"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const Graph folded = run_passes(g);
  EXPECT_EQ(ops_of(folded), (std::vector<std::string>{"Gemm"}));
  expect_same_outputs(g, folded);

  ModelBuilder m2;
  m2.input("x", {1, 4, 5, 5}).weights("w", {4, 4, 3, 3}).output("y");
  bn_params(m2, 4);
  m2.node("Mul", {"var_raw", "var_raw"}, {"var"});
  set_ints(m2.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m2.node("BatchNormalization", {"c", "s", "B", "mean", "var"}, {"n"});
  m2.node("Add", {"n", "c"}, {"y"});
  const Graph g2 = import_onnx_bytes(m2.bytes());
  EXPECT_EQ(ops_of(run_passes(g2)), (std::vector<std::string>{"Conv", "BatchNormalization", "Add"}));
}

TEST(EliminateDeadCode, DropsWhatReachesNoOutput) {
  // Before: y = Relu(x) + c, c folded at import, and a Sigmoid nobody
  // reads. After: the Relu and the Add.
  ModelBuilder m;
  m.input("x", {2, 3}).weights("w", {2, 3}).output("y");
  m.node("Sigmoid", {"x"}, {"unused"});
  m.node("Mul", {"w", "w"}, {"c"});
  m.node("Relu", {"x"}, {"r"});
  m.node("Add", {"r", "c"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(ops_of(run_passes(g, "fold_batch_norm")), (std::vector<std::string>{"Sigmoid", "Mul", "Relu", "Add"}));
  const Graph after = run_passes(g);
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"Relu", "Add"}));
  expect_same_outputs(g, after);
}

TEST(SplitIntoSlices, EachOutputASliceThatJoinsItsReader) {
  // Before: one Split of a fused projection in three. After: three
  // Slices, and with fusion each joins the product that reads it, the
  // Split's copies gone.
  ModelBuilder m;
  m.input("x", {4, 6}).ints("parts", {2, 2, 2}).output("y");
  set_int(m.node("Split", {"x", "parts"}, {"q", "k", "v"}), "axis", 1);
  set_ints(m.node("Transpose", {"k"}, {"kt"}), "perm", {1, 0});
  m.node("MatMul", {"q", "kt"}, {"qk"});  // [4, 2] x [2, 4]
  m.node("MatMul", {"qk", "v"}, {"y"});   // [4, 4] x [4, 2]
  const Graph g = import_onnx_bytes(m.bytes());
  const Graph after = run_passes(g, "split_into_slices");
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"Slice", "Slice", "Slice", "Transpose", "MatMul", "MatMul"}));
  EXPECT_EQ(after.nodes[1].attr_ints("starts", {}), (std::vector<int64_t>{2}));
  EXPECT_EQ(after.nodes[1].attr_ints("ends", {}), (std::vector<int64_t>{4}));
  EXPECT_EQ(after.nodes[1].attr_ints("axes", {}), (std::vector<int64_t>{1}));
  expect_same_outputs(g, after);
  EXPECT_EQ(groups_str(run_passes(g), fuse_operators(run_passes(g))),
            "%qk = Slice+Slice+Transpose+MatMul(%x)\n"
            "%y = Slice+MatMul(%x, %qk)\n");
}

TEST(PadDenseColumns, AnAwkwardWeightIsPaddedAndTheColumnsSlicedBack) {
  // Before: a MatMul onto 300 columns, which no vector width divides past
  // 4. After (16 lanes, blocks of 64): the weight padded with zero columns
  // to 320, and a Slice taking the 300 back; outputs unchanged. A weight
  // of fewer than 256 columns, and a MatMul of two computed values, stay.
  ModelBuilder m;
  m.input("x", {3, 8}).weights("w", {8, 300}).weights("small", {300, 100}).output("y");
  m.node("MatMul", {"x", "w"}, {"h"});
  m.node("MatMul", {"h", "small"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const Graph after = pad_dense_columns(g, 16);
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"MatMul", "Slice", "MatMul"}));
  EXPECT_EQ(after.value(after.nodes[0].inputs[1]).shape, (std::vector<int64_t>{8, 320}));
  EXPECT_EQ(after.value(after.nodes[0].outputs[0]).shape, (std::vector<int64_t>{3, 320}));
  EXPECT_EQ(after.nodes[1].attr_ints("ends", {}), (std::vector<int64_t>{300}));
  EXPECT_EQ(after.nodes[1].attr_ints("axes", {}), (std::vector<int64_t>{1}));
  EXPECT_EQ(after.value(after.nodes[2].inputs[1]).shape, (std::vector<int64_t>{300, 100}));
  expect_same_outputs(g, after);
  EXPECT_EQ(pad_dense_columns(g, 0).str(), g.str());  // off
  EXPECT_EQ(ops_of(run_passes(g, "pad_dense_columns", {.lanes = 0, .dense_lanes = 16})), ops_of(after));
}

// softmax(where(keep, Q·Kᵀ / 2 + mask, lowest)) · V over `keys` keys, as
// GPT-2 and BERT write their masks together, recognized as one attention.
Graph masked_attention(int64_t keys) {
  ModelBuilder m(14);
  m.input("q", {1, 2, 3, 4}).input("kt", {1, 2, 4, keys}).input("v", {1, 2, keys, 5});
  m.input("mask", {1, 1, 1, keys}).input("keep", {3, keys}, onnx::TensorProto::BOOL);
  m.output("y").scalar_float("root_d", 2).scalar_float("lowest", -3.4e38f);
  m.node("MatMul", {"q", "kt"}, {"s"});
  m.node("Div", {"s", "root_d"}, {"ss"});
  m.node("Add", {"ss", "mask"}, {"sm"});
  m.node("Where", {"keep", "sm", "lowest"}, {"z"});
  set_int(m.node("Softmax", {"z"}, {"p"}), "axis", -1);
  m.node("MatMul", {"p", "v"}, {"y"});
  return run_passes(import_onnx_bytes(m.bytes()), "eliminate_dead_code");
}

TEST(PadAttentionKeys, AnAwkwardKeyCountComputesOverWholeVectorsAndTheSameResult) {
  // Before: 20 keys, which 16 lanes do not divide. After: padded_keys=32
  // on the attention, the values it reads and writes as they were, and the
  // same outputs (the mask, the keep condition and Kᵀ padded inside the
  // operator, the 12 columns past the keys scoring -inf).
  const Graph g = masked_attention(20);
  ASSERT_EQ(ops_of(g), (std::vector<std::string>{kAttention}));
  const Graph after = pad_attention_keys(g, 16);
  EXPECT_EQ(after.nodes.at(0).attr_int(kPaddedKeys, 0), 32);
  EXPECT_EQ(after.value(after.nodes[0].inputs[1]).shape, g.value(g.nodes[0].inputs[1]).shape);
  expect_same_outputs(g, after);
  EXPECT_EQ(run_passes(g, "pad_attention_keys", {.lanes = 0, .dense_lanes = 16}).nodes.at(0).attr_int(kPaddedKeys, 0), 32);
  // Keys a vector divides, keys within one vector, and the pass off: as they were.
  EXPECT_EQ(pad_attention_keys(masked_attention(32), 16).str(), masked_attention(32).str());
  EXPECT_EQ(pad_attention_keys(masked_attention(13), 16).str(), masked_attention(13).str());
  EXPECT_EQ(pad_attention_keys(g, 0).str(), g.str());
}

TEST(RunPasses, AnUnknownPassIsNamedWithTheList) {
  ModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  try {
    run_passes(g, "fuse_everything");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no graph pass called 'fuse_everything'; the passes are fold_batch_norm, fold_qdq, fold_zero_points, "
                                         "split_into_slices, recognize_layer_norm, recognize_gelu, recognize_silu, recognize_attention, "
                                         "eliminate_dead_code"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::graph
