// The recognizers of graph/recognize.h on small graphs: the decomposed
// form before, the operator after, and the same outputs either way.
#include <gtest/gtest.h>

#include "graph/fuse.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/recognize.h"
#include "graph/reference.h"
#include "model_builder.h"
#include "same_outputs.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;

// The graph's nodes after recognition and dead-code elimination, a line each: "%y = Op(%a, %b)".
std::string nodes_after(const Graph& g) {
  const Graph r = run_passes(g, "eliminate_dead_code");
  std::string out;
  for (const Node& n : r.nodes) {
    out += "%" + r.value(n.outputs.at(0)).name + " = " + n.op + "(";
    for (size_t i = 0; i < n.inputs.size(); ++i)
      out += (i ? ", " : "") + (n.inputs[i] == Node::kNone ? std::string("-") : "%" + r.value(n.inputs[i]).name);
    out += ")\n";
  }
  return out;
}

void expect_same_outputs(const Graph& g) {
  testing::expect_same_outputs(g, run_passes(g, "eliminate_dead_code"));
}

// LayerNorm as opset 14 exporters write it, over the last axis.
void decomposed_layer_norm(ModelBuilder& m, const std::string& x, const std::string& y) {
  m.weights("gamma", {8}).weights("beta", {8}).scalar_float("two", 2).scalar_float("eps", 1e-5f);
  testing::set_ints(m.node("ReduceMean", {x}, {"mean"}), "axes", {-1});
  m.node("Sub", {x, "mean"}, {"d"});
  m.node("Pow", {"d", "two"}, {"sq"});
  testing::set_ints(m.node("ReduceMean", {"sq"}, {"var"}), "axes", {-1});
  m.node("Add", {"var", "eps"}, {"ve"});
  m.node("Sqrt", {"ve"}, {"sd"});
  m.node("Div", {"d", "sd"}, {"n"});
  m.node("Mul", {"n", "gamma"}, {"g"});
  m.node("Add", {"g", "beta"}, {y});
}

TEST(Recognize, DecomposedLayerNormIsOneLayerNormalization) {
  ModelBuilder m(14);
  m.input("x", {2, 3, 8}).output("y");
  decomposed_layer_norm(m, "x", "y");
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g), "%y = LayerNormalization(%x, %gamma, %beta)\n");
  const Graph r = recognize_layer_norm(g);
  const Node& ln = r.nodes.back();
  EXPECT_EQ(ln.attr_int("axis", 0), 2);
  EXPECT_NEAR(ln.attr_float("epsilon", 0), 1e-5, 1e-12);
  expect_same_outputs(g);
}

TEST(Recognize, AnInnerValueReadElsewhereKeepsThePattern) {
  // %d (x - mean) is also a graph output: the nodes that compute it stay.
  ModelBuilder m(14);
  m.input("x", {2, 8}).output("y").output("d");
  decomposed_layer_norm(m, "x", "y");
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g).find("LayerNormalization"), std::string::npos) << nodes_after(g);
  expect_same_outputs(g);
}

TEST(Recognize, GeluInItsErfForm) {
  // PyTorch's F.gelu at opset 14: x * (1 + erf(x / sqrt(2))) * 0.5.
  ModelBuilder m(14);
  m.input("x", {4, 8}).output("y");
  m.scalar_float("sqrt2", 1.4142135f).scalar_float("one", 1).scalar_float("half", 0.5f);
  m.node("Div", {"x", "sqrt2"}, {"a"});
  m.node("Erf", {"a"}, {"e"});
  m.node("Add", {"e", "one"}, {"b"});
  m.node("Mul", {"x", "b"}, {"c"});
  m.node("Mul", {"c", "half"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g), "%y = Gelu(%x)\n");
  expect_same_outputs(g);
}

TEST(Recognize, GeluInItsTanhForm) {
  // GPT-2's: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
  ModelBuilder m(14);
  m.input("x", {4, 8}).output("y");
  m.scalar_float("three", 3).scalar_float("k", 0.044715f).scalar_float("c", 0.7978845608f);
  m.scalar_float("one", 1).scalar_float("half", 0.5f);
  m.node("Pow", {"x", "three"}, {"x3"});
  m.node("Mul", {"k", "x3"}, {"kx3"});
  m.node("Add", {"x", "kx3"}, {"s"});
  m.node("Mul", {"c", "s"}, {"u"});
  m.node("Tanh", {"u"}, {"t"});
  m.node("Add", {"one", "t"}, {"b"});
  m.node("Mul", {"half", "x"}, {"hx"});
  m.node("Mul", {"hx", "b"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g), "%y = Gelu(%x)\n");
  EXPECT_EQ(recognize_gelu(g).nodes.back().attr_string("approximate", ""), "tanh");
  expect_same_outputs(g);
}

TEST(Recognize, SiluIsOneOperatorAndAConvolutionsEpilogue) {
  // EfficientNet's activation as PyTorch exports it: before, a Sigmoid and
  // a Mul that both read the Conv, a diamond no fusion chain takes (the
  // Conv, then Sigmoid+Mul on their own: the activation's tensor written
  // and read again); after, one kiln.SiLU, fused into the Conv's group.
  ModelBuilder m(14);
  m.input("x", {1, 4, 6, 6}).weights("w", {8, 4, 3, 3}).output("y").output("z").output("u");
  m.node("Conv", {"x", "w"}, {"c"});
  m.node("Sigmoid", {"c"}, {"s"});
  m.node("Mul", {"s", "c"}, {"y"});
  // A Sigmoid read elsewhere too (a graph output here) keeps its Mul.
  m.node("Sigmoid", {"x"}, {"z"});
  m.node("Mul", {"x", "z"}, {"t"});
  m.node("Relu", {"t"}, {"u"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g),
            "%c = Conv(%x, %w)\n%y = kiln.SiLU(%c)\n%z = Sigmoid(%x)\n%t = Mul(%x, %z)\n%u = Relu(%t)\n");
  const Graph r = run_passes(g, "eliminate_dead_code");
  EXPECT_NE(groups_str(r, fuse_operators(r)).find("%y = Conv+kiln.SiLU(%x, %w)"), std::string::npos)
      << groups_str(r, fuse_operators(r));
  expect_same_outputs(g);
}

TEST(Recognize, AttentionWithAScaleAndAnAdditiveMask) {
  // BERT's: softmax(Q·Kᵀ / sqrt(d) + mask) · V.
  ModelBuilder m(14);
  m.input("q", {1, 2, 5, 4}).input("kt", {1, 2, 4, 5}).input("v", {1, 2, 5, 3}).input("mask", {1, 1, 1, 5});
  m.output("y").scalar_float("root_d", 2);
  m.node("MatMul", {"q", "kt"}, {"s"});
  m.node("Div", {"s", "root_d"}, {"ss"});
  m.node("Add", {"ss", "mask"}, {"z"});
  testing::set_int(m.node("Softmax", {"z"}, {"p"}), "axis", -1);
  m.node("MatMul", {"p", "v"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g), "%y = kiln.Attention(%q, %kt, %v, %mask, -)\n");
  EXPECT_DOUBLE_EQ(recognize_attention(g).nodes.back().attr_float("scale", 0), 0.5);
  expect_same_outputs(g);
}

TEST(Recognize, AttentionWithACausalWhereAndTheScaleOnTheQueries) {
  // GPT-2's mask is a Where over a constant; ViT's exporter scales Q.
  ModelBuilder m(14);
  m.input("q", {2, 5, 4}).input("kt", {2, 4, 5}).input("v", {2, 5, 3}).input("keep", {5, 5}, onnx::TensorProto::BOOL);
  m.output("y").scalar_float("scale", 0.5f).scalar_float("lowest", -3.4e38f);
  m.node("Mul", {"q", "scale"}, {"qs"});
  m.node("MatMul", {"qs", "kt"}, {"s"});
  m.node("Where", {"keep", "s", "lowest"}, {"z"});
  testing::set_int(m.node("Softmax", {"z"}, {"p"}), "axis", 2);
  m.node("MatMul", {"p", "v"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g), "%y = kiln.Attention(%q, %kt, %v, -, %keep)\n");
  expect_same_outputs(g);
}

TEST(Recognize, ASoftmaxOverAnotherAxisIsNoAttention) {
  ModelBuilder m(14);
  m.input("q", {2, 5, 4}).input("kt", {2, 4, 5}).input("v", {2, 5, 3}).output("y");
  m.node("MatMul", {"q", "kt"}, {"s"});
  testing::set_int(m.node("Softmax", {"s"}, {"p"}), "axis", 1);
  m.node("MatMul", {"p", "v"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(nodes_after(g), "%s = MatMul(%q, %kt)\n%p = Softmax(%s)\n%y = MatMul(%p, %v)\n");
}

}  // namespace
}  // namespace kiln::graph
