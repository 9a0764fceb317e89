// The graph's reference execution (each node's compute definition on the
// interpreter) against the arithmetic written out, and constant folding.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/onnx_import.h"
#include "graph/reference.h"
#include "model_builder.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::set_int;
using testing::set_ints;

NDArray iota(std::vector<int64_t> shape, double scale = 1.0, double offset = 0.0) {
  NDArray a(DataType::Float32(), std::move(shape));
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, offset + scale * static_cast<double>(i));
  return a;
}

TEST(Reference, BroadcastArithmeticTransposeAndReshape) {
  // y = reshape(transpose(relu(x - b)), [3, 2]); x: [2, 3], b: [2, 1].
  ModelBuilder m;
  m.input("x", {2, 3}).input("b", {2, 1}).ints("shape", {3, 2}).output("y");
  m.node("Sub", {"x", "b"}, {"d"});
  m.node("Relu", {"d"}, {"r"});
  m.node("Transpose", {"r"}, {"t"});
  m.node("Reshape", {"t", "shape"}, {"y"});
  Graph g = import_onnx_bytes(m.bytes());
  std::vector<NDArray> in;
  in.push_back(iota({2, 3}));          // 0 1 2 / 3 4 5
  in.push_back(iota({2, 1}, 2, 1));    // 1 / 3
  NDArray y = std::move(run_reference(g, in)[0]);
  // relu(x - b) = [0 0 1; 0 1 2]; transposed [0 0; 0 1; 1 2].
  const double want[] = {0, 0, 0, 1, 1, 2};
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(y.get(i), want[i]) << i;
}

TEST(Reference, ShapeArithmeticFoldsAtImport) {
  // Flatten as exporters write it: Shape -> Gather(0) -> Unsqueeze ->
  // Concat with [-1] -> Reshape. Before folding, Reshape's shape was not a
  // constant and the import failed; after, it is [2, -1] and y is [2, 12].
  ModelBuilder m;
  m.input("x", {2, 3, 4}).scalar("zero", 0).ints("minus_one", {-1}).ints("axes", {0}).output("y");
  m.node("Shape", {"x"}, {"s"});
  onnx::NodeProto& gather = m.node("Gather", {"s", "zero"}, {"n"});
  set_int(gather, "axis", 0);
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  set_int(m.node("Concat", {"n1", "minus_one"}, {"target"}), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"});
  Graph g = import_onnx_bytes(m.bytes());
  const Value& target = g.value(g.value_id("target"));
  ASSERT_TRUE(target.is_constant());
  EXPECT_EQ(target.data->data_as<int64_t>()[0], 2);
  EXPECT_EQ(target.data->data_as<int64_t>()[1], -1);
  EXPECT_EQ(g.value(g.outputs[0]).shape, (std::vector<int64_t>{2, 12}));
}

TEST(Reference, FoldingAtImportIsBoundedByWork) {
  // An add of two [2^28 - 3, 0] constants stores nothing, yet its loop
  // nest takes 2^28 steps: a second on the interpreter (minutes in a
  // sanitized build). Past ImportOptions::max_fold_steps it is left a node.
  ModelBuilder m;
  m.weights("a", {268435453, 0}).weights("b", {2, 3}).output("y").output("z");
  m.node("Add", {"a", "a"}, {"y"});
  m.node("Add", {"b", "b"}, {"z"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_FALSE(g.value(g.value_id("y")).is_constant());
  EXPECT_TRUE(g.value(g.value_id("z")).is_constant());
}

TEST(Reference, ConvWithAsymmetricPadsAndBias) {
  // One input channel, one output channel, 2x2 kernel of ones, pads
  // top 1, left 0, bottom 0, right 1, bias 0.5: each output is the sum of
  // the window over the padded input, plus the bias.
  ModelBuilder m;
  m.input("x", {1, 1, 3, 3}).output("y");
  m.weights("w", {1, 1, 2, 2}).weights("b", {1});
  onnx::NodeProto& conv = m.node("Conv", {"x", "w", "b"}, {"y"});
  set_ints(conv, "pads", {1, 0, 0, 1});
  Graph g = import_onnx_bytes(m.bytes());
  ASSERT_EQ(g.value(g.outputs[0]).shape, (std::vector<int64_t>{1, 1, 3, 3}));
  const NDArray& wt = *g.value(g.value_id("w")).data;
  const double bias = g.value(g.value_id("b")).data->get(0);
  std::vector<NDArray> in;
  in.push_back(iota({1, 1, 3, 3}));
  NDArray y = std::move(run_reference(g, in)[0]);
  for (int64_t p = 0; p < 3; ++p)
    for (int64_t q = 0; q < 3; ++q) {
      double want = bias;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t s = 0; s < 2; ++s) {
          const int64_t h = p + r - 1, c = q + s;
          if (h >= 0 && h < 3 && c < 3) want += wt.get(r * 2 + s) * static_cast<double>(h * 3 + c);
        }
      EXPECT_NEAR(y.get(p * 3 + q), want, 1e-5) << p << "," << q;
    }
}

TEST(Reference, SoftmaxAlongAMiddleAxis) {
  ModelBuilder m;
  m.input("x", {2, 3, 2}).output("y");
  set_int(m.node("Softmax", {"x"}, {"y"}), "axis", 1);
  Graph g = import_onnx_bytes(m.bytes());
  std::vector<NDArray> in;
  in.push_back(iota({2, 3, 2}, 0.5));
  NDArray y = std::move(run_reference(g, in)[0]);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t c = 0; c < 2; ++c) {
      double denom = 0;
      for (int64_t b = 0; b < 3; ++b) denom += std::exp(0.5 * static_cast<double>((a * 3 + b) * 2 + c));
      for (int64_t b = 0; b < 3; ++b) {
        const int64_t i = (a * 3 + b) * 2 + c;
        EXPECT_NEAR(y.get(i), std::exp(0.5 * static_cast<double>(i)) / denom, 1e-6);
      }
    }
}

TEST(Reference, MatMulBroadcastsBatches) {
  // [2, 1, 2, 3] x [4, 3, 2] -> [2, 4, 2, 2]
  ModelBuilder m;
  m.input("a", {2, 1, 2, 3}).input("b", {4, 3, 2}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"});
  Graph g = import_onnx_bytes(m.bytes());
  std::vector<NDArray> in;
  in.push_back(iota({2, 1, 2, 3}));
  in.push_back(iota({4, 3, 2}, 0.5));
  NDArray y = std::move(run_reference(g, in)[0]);
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, 4, 2, 2}));
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t z = 0; z < 4; ++z)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          double want = 0;
          for (int64_t k = 0; k < 3; ++k) want += in[0].get((x * 2 + i) * 3 + k) * in[1].get((z * 3 + k) * 2 + j);
          EXPECT_NEAR(y.get(((x * 4 + z) * 2 + i) * 2 + j), want, 1e-4);
        }
}

TEST(Reference, AnInputOfTheWrongShapeIsNamed) {
  ModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  Graph g = import_onnx_bytes(m.bytes());
  std::vector<NDArray> in;
  in.push_back(iota({3}));
  EXPECT_THROW(run_reference(g, in), Error);
}

}  // namespace
}  // namespace kiln::graph
