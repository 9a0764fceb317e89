// fold_qdq and the blocked int8 convolution after it: a QDQ model's
// convolution as the graph was and as it is folded, each checked to compute
// what the float graph did within one step of the output's quantization,
// and the blocked form exactly what the folded one does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "graph/fold_qdq.h"
#include "graph/layout.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "model_builder.h"
#include "qdq_models.h"
#include "same_outputs.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::qdq_conv;
using testing::QConv;

std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) out.push_back(n.op);
  return out;
}

// The float graph's output and the folded one's differ by at most one step
// of y's quantization (0.02) and in few elements: the folded product is
// exact and rounds once.
void expect_within_one_step(const Graph& before, const Graph& after) {
  std::vector<NDArray> in = testing::random_inputs(before, 3), in2;
  for (const NDArray& a : in) in2.push_back(a.copy());
  const NDArray want = std::move(run_reference(before, in)[0]), got = std::move(run_reference(after, in2)[0]);
  ASSERT_EQ(want.shape(), got.shape());
  int64_t differ = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    ASSERT_LE(std::abs(got.get(i) - want.get(i)), 0.02 + 1e-6) << i;
    differ += got.get(i) != want.get(i);
  }
  EXPECT_LE(differ, want.numel() / 20) << "of " << want.numel();
}

TEST(FoldQdq, AQuantizedConvolutionIsOneQLinearConv) {
  // Before: the float graph between its quantize and dequantize pairs.
  // After: the input's QuantizeLinear, one QLinearConv reading the uint8
  // data and the int8 weights, the output's DequantizeLinear.
  const Graph before = qdq_conv({});
  const Graph after = eliminate_dead_code(fold_qdq(before));
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"QuantizeLinear", "QLinearConv", "DequantizeLinear"}));
  const Node& q = after.nodes[1];
  EXPECT_EQ(after.value(q.inputs[3]).dtype, DataType::Int(8));
  EXPECT_EQ(after.value(q.inputs.at(8)).dtype, DataType::Int(32));  // the bias in steps of sx · sw
  expect_within_one_step(before, after);
}

TEST(FoldQdq, WithoutReluBiasOrPaddingAndStrided) {
  QConv c;
  c.relu = false, c.bias = false, c.pad = 0, c.stride = 2, c.kernel = 1, c.C = 16, c.y_zp = 128;
  const Graph before = qdq_conv(c);
  const Graph after = eliminate_dead_code(fold_qdq(before));
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"QuantizeLinear", "QLinearConv", "DequantizeLinear"}));
  expect_within_one_step(before, after);
}

TEST(FoldQdq, Int8DataIsReadAsUint8) {
  // int8 x of zero point 5 and y of -128 (so the Relu folds): x + 128 as
  // uint8 by a DequantizeLinear and a QuantizeLinear of scale 1 before the
  // QLinearConv, whose x zero point is 133. Blocked, it is the uint8
  // convolution, and computes what the folded graph does exactly.
  QConv c;
  c.signed_data = true, c.x_zp = 5, c.y_zp = -128;
  const Graph before = qdq_conv(c);
  const Graph after = eliminate_dead_code(fold_qdq(before));
  EXPECT_EQ(ops_of(after), (std::vector<std::string>{"QuantizeLinear", "DequantizeLinear", "QuantizeLinear",
                                                     "QLinearConv", "DequantizeLinear"}));
  const Node& q = after.nodes[3];
  EXPECT_EQ(after.value(q.inputs[0]).dtype, DataType::UInt(8));
  EXPECT_EQ(after.value(q.inputs[2]).data->get(0), 133);
  expect_within_one_step(before, after);
  const Graph blocked = convert_layout(after, 16);
  const std::vector<std::string> ops = ops_of(blocked);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), std::string(kQLinearConvNCHWc)), 1);
  std::vector<NDArray> in = testing::random_inputs(after, 5), in2;
  for (const NDArray& a : in) in2.push_back(a.copy());
  const NDArray want = std::move(run_reference(after, in)[0]), got = std::move(run_reference(blocked, in2)[0]);
  for (int64_t i = 0; i < want.numel(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << i;
}

TEST(FoldQdq, LeftWhereItDoesNotHold) {
  // A Relu before an output zero point of 128: the saturation is not the
  // Relu. The float graph stays.
  QConv c;
  c.y_zp = 128;
  const Graph g = qdq_conv(c);
  EXPECT_EQ(fold_qdq(g).str(), g.str());
}

TEST(FoldQdq, BlockedTheConvolutionIsTheInt8DotProductsExactly) {
  // Three input channels padded to a block of 4, padding of the zero point
  // 130, 8 output channels in a block of 8: QLinearConvNCHWc, the output
  // dequantized blocked and made plain once. Its output is the folded
  // graph's, element for element.
  const Graph folded = eliminate_dead_code(fold_qdq(qdq_conv({})));
  const Graph blocked = convert_layout(folded, 16);
  EXPECT_EQ(ops_of(blocked), (std::vector<std::string>{"QuantizeLinear", kToNCHWc, kQLinearConvNCHWc,
                                                       "DequantizeLinear", kFromNCHWc}));
  EXPECT_EQ(blocked.value(blocked.nodes[1].outputs[0]).shape, (std::vector<int64_t>{1, 1, 10, 10, 4}));
  std::vector<NDArray> in = testing::random_inputs(folded, 5), in2;
  for (const NDArray& a : in) in2.push_back(a.copy());
  const NDArray want = std::move(run_reference(folded, in)[0]), got = std::move(run_reference(blocked, in2)[0]);
  ASSERT_EQ(want.shape(), got.shape());
  for (int64_t i = 0; i < want.numel(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << i;
}

}  // namespace
}  // namespace kiln::graph
