// fold_zero_points: a MatMulInteger's zero point out of the product, as a
// correction by the constant weights' column sums; before and after
// compute the same integers.
#include <gtest/gtest.h>

#include "graph/fold_zero_points.h"
#include "graph/onnx_import.h"
#include "graph/reference.h"
#include "model_builder.h"
#include "same_outputs.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::ops_of;

// a (uint8 [6, 32]) by constant int8 B [32, 16], A's zero point an input
// (as DynamicQuantizeLinear computes it), B's a constant `zb`.
Graph product(double zb) {
  ModelBuilder m;
  m.input("a", {6, 32}, onnx::TensorProto::UINT8)
      .input("za", {}, onnx::TensorProto::UINT8)
      .int8_weights("b", {32, 16})
      .constant("zb", onnx::TensorProto::INT8, {}, {zb})
      .output("y");
  m.node("MatMulInteger", {"a", "b", "za", "zb"}, {"y"});
  return import_onnx_bytes(m.bytes());
}

TEST(FoldZeroPoints, AZeroPointBecomesAColumnSumCorrection) {
  // Before: one MatMulInteger with both zero points. After: the plain
  // product, and za · colsum(B) (a constant of 16) subtracted.
  const Graph before = product(0);
  const Graph after = fold_zero_points(before);
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"MatMulInteger", "Cast", "Mul", "Sub"}));
  EXPECT_EQ(after.nodes[0].inputs.size(), 2u);
  EXPECT_EQ(after.value(after.nodes[2].inputs[1]).shape, (std::vector<int64_t>{16}));
  std::vector<NDArray> in = testing::random_inputs(before, 4), in2;
  in[0].fill_random(4, 0, 255);
  in[1].fill_random(5, 0, 255);
  for (const NDArray& a : in) in2.push_back(a.copy());
  const NDArray want = std::move(run_reference(before, in)[0]), got = std::move(run_reference(after, in2)[0]);
  ASSERT_EQ(want.shape(), got.shape());
  int64_t nonzero = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    ASSERT_EQ(got.get(i), want.get(i)) << i;
    nonzero += want.get(i) != 0;
  }
  EXPECT_GT(nonzero, want.numel() / 2);
}

TEST(FoldZeroPoints, LeftWhereBHasAZeroPoint) {
  const Graph g = product(3);
  EXPECT_EQ(fold_zero_points(g).str(), g.str());
}

}  // namespace
}  // namespace kiln::graph
