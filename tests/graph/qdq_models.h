// A quantized (QDQ) convolution as the quantization tools write one, for
// the tests of graph/fold_qdq.h and of compiled int8 models.
#pragma once

#include <string>
#include <vector>

#include "graph/onnx_import.h"
#include "model_builder.h"

namespace kiln::graph::testing {

struct QConv {
  int64_t C = 3, K = 8, H = 10, kernel = 3, stride = 1, pad = 1;
  double x_zp = 130;  // uint8 x's zero point: the padding holds it
  double y_zp = 0;    // with relu, the Relu folds only where this is 0
  bool relu = true, bias = true;
  bool signed_data = false;  // int8 x and y (zero points as int8)
  bool small_weights = false;  // weights in [-64, 64] (7 bits), else over the whole byte
};

// The weights' values: cycling over the byte, or over [-64, 64].
inline std::vector<double> weights(const QConv& c) {
  std::vector<double> w;
  for (int64_t i = 0; i < c.K * c.C * c.kernel * c.kernel; ++i)
    w.push_back(c.small_weights ? static_cast<double>((i * 37) % 129) - 64 : static_cast<double>((i * 37) % 256) - 128);
  return w;
}

// x (float) -> QuantizeLinear -> DequantizeLinear -> Conv(DQ(int8 w per
// channel), bias) [-> Relu] -> QuantizeLinear -> DequantizeLinear -> y.
inline Graph qdq_conv(const QConv& c) {
  ModelBuilder m;
  using onnx::TensorProto;
  std::vector<double> w_scale, zeros(static_cast<size_t>(c.K), 0.0), bias;
  for (int64_t k = 0; k < c.K; ++k) {
    w_scale.push_back(0.002 + 0.0005 * static_cast<double>(k));
    bias.push_back(0.05 * static_cast<double>(k % 5) - 0.1);
  }
  m.input("x", {1, c.C, c.H, c.H})
      .constant("sx", TensorProto::FLOAT, {}, {0.01})
      .constant("zx", c.signed_data ? TensorProto::INT8 : TensorProto::UINT8, {}, {c.x_zp})
      .constant("wq", TensorProto::INT8, {c.K, c.C, c.kernel, c.kernel}, weights(c))
      .constant("sw", TensorProto::FLOAT, {c.K}, w_scale)
      .constant("zw", TensorProto::INT8, {c.K}, zeros)
      .constant("b", TensorProto::FLOAT, {c.K}, bias)
      .constant("sy", TensorProto::FLOAT, {}, {0.02})
      .constant("zy", c.signed_data ? TensorProto::INT8 : TensorProto::UINT8, {}, {c.y_zp})
      .output("y");
  m.node("QuantizeLinear", {"x", "sx", "zx"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "sx", "zx"}, {"xd"});
  onnx::NodeProto& dw = m.node("DequantizeLinear", {"wq", "sw", "zw"}, {"w"});
  set_int(dw, "axis", 0);
  std::vector<std::string> conv_in{"xd", "w"};
  if (c.bias) conv_in.push_back("b");
  onnx::NodeProto& conv = m.node("Conv", conv_in, {"conv"});
  set_ints(conv, "pads", {c.pad, c.pad, c.pad, c.pad});
  set_ints(conv, "strides", {c.stride, c.stride});
  if (c.relu) m.node("Relu", {"conv"}, {"act"});
  m.node("QuantizeLinear", {c.relu ? "act" : "conv", "sy", "zy"}, {"yq"});
  m.node("DequantizeLinear", {"yq", "sy", "zy"}, {"y"});
  return import_onnx_bytes(m.bytes());
}

}  // namespace kiln::graph::testing
