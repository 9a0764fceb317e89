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
using testing::ops_of;
using testing::qdq_conv;
using testing::QConv;

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

// a (float [2, 5, 32]) quantized to uint8 (or int8) and dequantized, by
// int8 weights dequantized per column: a MatMul ([32, 24]) or a Gemm
// (transB, [24, 32], with a bias) of the batch's rows.
Graph qdq_product(bool gemm, bool signed_data) {
  ModelBuilder m;
  using onnx::TensorProto;
  std::vector<double> w_scale, zeros(24, 0.0), bias;
  for (int64_t n = 0; n < 24; ++n) {
    w_scale.push_back(0.003 + 0.0002 * static_cast<double>(n));
    bias.push_back(0.1 * static_cast<double>(n % 3));
  }
  const TensorProto::DataType q = signed_data ? TensorProto::INT8 : TensorProto::UINT8;
  m.input("a", gemm ? std::vector<int64_t>{10, 32} : std::vector<int64_t>{2, 5, 32})
      .constant("sa", TensorProto::FLOAT, {}, {0.02})
      .constant("za", q, {}, {signed_data ? -7.0 : 121.0})
      .int8_weights("wq", gemm ? std::vector<int64_t>{24, 32} : std::vector<int64_t>{32, 24})
      .constant("sw", TensorProto::FLOAT, {24}, w_scale)
      .constant("zw", TensorProto::INT8, {24}, zeros)
      .constant("c", TensorProto::FLOAT, {24}, bias)
      .output("y");
  m.node("QuantizeLinear", {"a", "sa", "za"}, {"aq"});
  m.node("DequantizeLinear", {"aq", "sa", "za"}, {"ad"});
  onnx::NodeProto& dw = m.node("DequantizeLinear", {"wq", "sw", "zw"}, {"w"});
  testing::set_int(dw, "axis", gemm ? 0 : 1);
  if (gemm) {
    onnx::NodeProto& n = m.node("Gemm", {"ad", "w", "c"}, {"y"});
    testing::set_int(n, "transB", 1);
  } else {
    m.node("MatMul", {"ad", "w"}, {"y"});
  }
  return import_onnx_bytes(m.bytes());
}

TEST(FoldQdq, AProductOfDequantizedOperandsIsTheIntegerProductScaled) {
  // Before: a float product of dequantized operands. After: MatMulInteger
  // of the quantized data (as rows; int8 data as uint8) by the int8
  // weights ([K, N]), cast, scaled by sa · sw[n], the Gemm's bias added.
  // The same values, to float rounding.
  for (bool signed_data : {false, true}) {
    const Graph mm = qdq_product(false, signed_data);
    const Graph mm_after = eliminate_dead_code(fold_qdq(mm));
    std::vector<std::string> want{"QuantizeLinear", "Reshape", "MatMulInteger", "Cast", "Mul", "Reshape"};
    if (signed_data) want.insert(want.begin() + 1, {"DequantizeLinear", "QuantizeLinear"});
    EXPECT_EQ(ops_of(mm_after), want);
    testing::expect_same_outputs(mm, mm_after);
    const Graph gemm = qdq_product(true, signed_data);
    const Graph gemm_after = eliminate_dead_code(fold_qdq(gemm));
    want = {"QuantizeLinear", "MatMulInteger", "Cast", "Mul", "Add"};
    if (signed_data) want.insert(want.begin() + 1, {"DequantizeLinear", "QuantizeLinear"});
    EXPECT_EQ(ops_of(gemm_after), want);
    testing::expect_same_outputs(gemm, gemm_after);
  }
}

}  // namespace
}  // namespace kiln::graph
