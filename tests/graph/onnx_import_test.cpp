// The ONNX front end: a model in, a graph with every shape inferred out;
// a model kiln cannot compile out with an error naming what is wrong.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include "core/error.h"
#include "graph/onnx_import.h"
#include "graph/op_table.h"
#include "model_builder.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::set_int;
using testing::set_ints;
using testing::set_string;

// A small classifier: conv (stride 2, pads 1) + relu, max pool (ceil
// mode), flatten, gemm.
ModelBuilder classifier(std::vector<int64_t> input = {1, 3, 16, 16}) {
  ModelBuilder b;
  b.input("image", input).weights("w", {8, 3, 3, 3}).weights("bias", {8}).weights("fc", {10, 128}).output("logits");
  onnx::NodeProto& conv = b.node("Conv", {"image", "w", "bias"}, {"c"}, "conv1");
  set_ints(conv, "strides", {2, 2});
  set_ints(conv, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  onnx::NodeProto& pool = b.node("MaxPool", {"r"}, {"p"}, "pool");
  set_ints(pool, "kernel_shape", {3, 3});
  set_ints(pool, "strides", {2, 2});
  set_int(pool, "ceil_mode", 1);
  b.node("Flatten", {"p"}, {"f"});
  onnx::NodeProto& gemm = b.node("Gemm", {"f", "fc"}, {"logits"}, "fc");
  set_int(gemm, "transB", 1);
  return b;
}

using kiln::testing::error_of;

TEST(OnnxImport, AClassifierWithEveryShapeInferred) {
  // conv 16 -> 8 (stride 2, pad 1), pool 8 -> 4 (3 wide, stride 2, ceil: (8 - 3) / 2 rounded up + 1).
  Graph g = import_onnx_bytes(classifier().bytes());
  EXPECT_EQ(g.opset, 17);
  EXPECT_EQ(g.str(),
            "graph (opset 17)\n"
            "  input %image: float32[1, 3, 16, 16]\n"
            "  const %w: float32[8, 3, 3, 3]\n"
            "  const %bias: float32[8]\n"
            "  const %fc: float32[10, 128]\n"
            "  %c = Conv(%image, %w, %bias) {pads=[1, 1, 1, 1], strides=[2, 2]} : float32[1, 8, 8, 8]  # conv1\n"
            "  %r = Relu(%c) : float32[1, 8, 8, 8]  # Relu_1\n"
            "  %p = MaxPool(%r) {ceil_mode=1, kernel_shape=[3, 3], strides=[2, 2]} : float32[1, 8, 4, 4]  # pool\n"
            "  %f = Flatten(%p) : float32[1, 128]  # Flatten_3\n"
            "  %logits = Gemm(%f, %fc) {transB=1} : float32[1, 10]  # fc\n"
            "  output %logits: float32[1, 10]\n");
}

TEST(OnnxImport, ADynamicDimensionNeedsInputShapes) {
  const std::string bytes = classifier({-1, 3, 16, 16}).bytes();
  const std::string why = error_of([&] { import_onnx_bytes(bytes); });
  EXPECT_NE(why.find("input 'image' has a dynamic dimension 'N'"), std::string::npos) << why;
  EXPECT_NE(why.find("--input-shapes image:[...]"), std::string::npos) << why;
  ImportOptions o;
  o.input_shapes = parse_input_shapes("image:[2,3,16,16]");
  Graph g = import_onnx_bytes(bytes, o);
  EXPECT_EQ(g.value(g.outputs[0]).shape, (std::vector<int64_t>{2, 10}));
  o.input_shapes = parse_input_shapes("images:[2,3,16,16]");
  EXPECT_NE(error_of([&] { import_onnx_bytes(bytes, o); }).find("'images', which is not an input"), std::string::npos);
}

TEST(OnnxImport, InputShapesParseOrSayWhatIsWrong) {
  auto shapes = parse_input_shapes("a:[1,3,224,224];b:[7]  c:[]");
  EXPECT_EQ(shapes.at("a"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(shapes.at("b"), (std::vector<int64_t>{7}));
  EXPECT_TRUE(shapes.at("c").empty());
  EXPECT_NE(error_of([] { parse_input_shapes("a:[1,x]"); }).find("bad dimension 'x'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_input_shapes("a=[1]"); }).find("'a=[1]' is not name:[dims]"), std::string::npos);
}

TEST(OnnxImport, AnUnsupportedOperatorNamesTheNodeItsTypeAndOpset) {
  ModelBuilder b(13);
  b.input("x", {3, 2, 2}).output("y");
  b.node("Relu", {"x"}, {"r"});
  b.node("Det", {"r"}, {"y"}, "det");
  const std::string why = error_of([&] { import_onnx_bytes(b.bytes()); });
  EXPECT_NE(why.find("node 'det' (Det): operator 'Det' (opset 13) is not supported yet"),
            std::string::npos)
      << why;
}

TEST(OnnxImport, AnOperatorRefusedOnPurposeSaysWhy) {
  ModelBuilder b(13);
  b.input("x", {4}).output("y");
  b.node("NonZero", {"x"}, {"y"}, "nz");
  EXPECT_NE(error_of([&] { import_onnx_bytes(b.bytes()); })
                .find("node 'nz' (NonZero): its output's shape depends on its input's values"),
            std::string::npos);
  ModelBuilder r(13);
  r.input("x", {4}).output("y");
  r.node("RandomUniformLike", {"x"}, {"y"}, "noise");
  EXPECT_NE(error_of([&] { import_onnx_bytes(r.bytes()); }).find("node 'noise' (RandomUniformLike): it draws random numbers"),
            std::string::npos);
}

TEST(OnnxImport, ANewerOpsetOrAnotherDtypeIsRefused) {
  ModelBuilder b(18);
  b.input("x", {4}).output("y");
  b.node("Relu", {"x"}, {"y"});
  EXPECT_NE(error_of([&] { import_onnx_bytes(b.bytes()); }).find("opset 18; kiln reads opsets up to 17"),
            std::string::npos);
  ModelBuilder s;
  s.input("x", {4}, onnx::TensorProto::STRING).output("y");
  s.node("Identity", {"x"}, {"y"});
  EXPECT_NE(error_of([&] { import_onnx_bytes(s.bytes()); }).find("input 'x' is of type STRING"), std::string::npos);
  EXPECT_NE(error_of([] { import_onnx_bytes("not a model"); }).find("not an ONNX model"), std::string::npos);
}

TEST(OnnxImport, ShapesFoldToConstantsAndReshapeReadsThem) {
  // Shape -> ConstantOfShape, and a Reshape by a constant with 0 and -1.
  ModelBuilder b;
  b.input("x", {2, 3, 4}).ints("target", {0, -1}).output("y").output("zeros");
  b.node("Shape", {"x"}, {"s"});
  b.node("ConstantOfShape", {"s"}, {"zeros"});
  b.node("Reshape", {"x", "target"}, {"y"});
  Graph g = import_onnx_bytes(b.bytes());
  const Value& s = g.value(g.value_id("s"));
  ASSERT_TRUE(s.is_constant());
  EXPECT_EQ(s.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(s.data->data_as<int64_t>()[2], 4);
  const Value& zeros = g.value(g.value_id("zeros"));
  ASSERT_TRUE(zeros.is_constant());
  EXPECT_EQ(zeros.shape, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(g.value(g.value_id("y")).shape, (std::vector<int64_t>{2, 12}));
}

TEST(OnnxImport, ShapeRulesOfTheOtherOperators) {
  ModelBuilder b;
  b.input("x", {1, 4, 6, 6}).input("m", {2, 1, 5, 3}).weights("k", {3, 7}).weights("dw", {4, 1, 3, 3});
  b.ints("starts", {1, 2}).ints("ends", {-1, 100}).ints("axes", {2, 3}).ints("steps", {1, 2});
  b.ints("pads", {0, 0, 1, 2, 0, 0, 3, 4}).ints("idx", {2, 0}).ints("sq", {0});
  for (const char* o : {"mm", "dwc", "sl", "pd", "ga", "tr", "sm", "rm", "cc", "avg", "gap", "us", "sqz"}) b.output(o);
  b.node("MatMul", {"m", "k"}, {"mm"});  // [2, 1, 5, 3] x [3, 7]
  onnx::NodeProto& dw = b.node("Conv", {"x", "dw"}, {"dwc"});
  set_int(dw, "group", 4);
  set_string(dw, "auto_pad", "SAME_UPPER");
  set_ints(dw, "strides", {2, 2});
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"sl"});
  b.node("Pad", {"x", "pads"}, {"pd"});
  set_int(b.node("Gather", {"x", "idx"}, {"ga"}), "axis", 1);
  set_ints(b.node("Transpose", {"x"}, {"tr"}), "perm", {0, 2, 3, 1});
  b.node("Softmax", {"x"}, {"sm"});
  onnx::NodeProto& rm = b.node("ReduceMean", {"x"}, {"rm"});
  set_ints(rm, "axes", {-1, 2});
  set_int(rm, "keepdims", 0);
  set_int(b.node("Concat", {"x", "x"}, {"cc"}), "axis", 1);
  onnx::NodeProto& avg = b.node("AveragePool", {"x"}, {"avg"});
  set_ints(avg, "kernel_shape", {2, 2});
  set_ints(avg, "pads", {1, 1, 0, 0});
  b.node("GlobalAveragePool", {"x"}, {"gap"});
  b.node("Unsqueeze", {"gap", "sq"}, {"us"});
  b.node("Squeeze", {"x", "sq"}, {"sqz"});
  Graph g = import_onnx_bytes(b.bytes());
  auto shape = [&](const char* v) { return g.value(g.value_id(v)).shape; };
  using S = std::vector<int64_t>;
  EXPECT_EQ(shape("mm"), (S{2, 1, 5, 7}));
  EXPECT_EQ(shape("dwc"), (S{1, 4, 3, 3}));
  EXPECT_EQ(shape("sl"), (S{1, 4, 4, 2})) << "rows 1..4, columns 2 and 4";
  EXPECT_EQ(shape("pd"), (S{1, 4, 10, 12}));
  EXPECT_EQ(shape("ga"), (S{1, 2, 6, 6}));
  EXPECT_EQ(shape("tr"), (S{1, 6, 6, 4}));
  EXPECT_EQ(shape("sm"), (S{1, 4, 6, 6}));
  EXPECT_EQ(shape("rm"), (S{1, 4}));
  EXPECT_EQ(shape("cc"), (S{1, 8, 6, 6}));
  EXPECT_EQ(shape("avg"), (S{1, 4, 6, 6}));
  EXPECT_EQ(shape("gap"), (S{1, 4, 1, 1}));
  EXPECT_EQ(shape("us"), (S{1, 1, 4, 1, 1}));
  EXPECT_EQ(shape("sqz"), (S{4, 6, 6}));
}

TEST(OnnxImport, ShapesThatDoNotFitNameTheNode) {
  ModelBuilder b;
  b.input("a", {2, 3}).input("b", {4, 5}).output("y");
  b.node("MatMul", {"a", "b"}, {"y"}, "proj");
  EXPECT_NE(error_of([&] { import_onnx_bytes(b.bytes()); }).find("node 'proj' (MatMul): [2, 3] and [4, 5] do not multiply"),
            std::string::npos);
  ModelBuilder r;
  r.input("a", {2, 3}).input("shape", {2}, onnx::TensorProto::INT64).output("y");
  r.node("Reshape", {"a", "shape"}, {"y"}, "view");
  EXPECT_NE(error_of([&] { import_onnx_bytes(r.bytes()); }).find("node 'view' (Reshape): its shape (input 'shape') must be a constant"),
            std::string::npos);
  // Found by fuzz_onnx_model (fuzz/corpus/onnx_model/finding-transpose-scalar-perm.onnx):
  // a scalar's perm of one axis went unchecked and indexed its empty shape.
  ModelBuilder t;
  t.input("x", {}).output("y");
  set_ints(t.node("Transpose", {"x"}, {"y"}, "flip"), "perm", {0});
  EXPECT_NE(error_of([&] { import_onnx_bytes(t.bytes()); }).find("node 'flip' (Transpose): perm [0] is not a permutation of 0 axes"),
            std::string::npos);
  // Found by fuzz_onnx_model (fuzz/corpus/onnx_model/finding-conv-stride-zero.onnx):
  // a stride of 0 divided by zero when the output extent was counted.
  ModelBuilder c;
  c.input("x", {1, 1, 5}).weights("w", {1, 1, 3}).output("y");
  set_ints(c.node("Conv", {"x", "w"}, {"y"}, "conv"), "strides", {0});
  EXPECT_NE(error_of([&] { import_onnx_bytes(c.bytes()); }).find("node 'conv' (Conv): kernel_shape, strides and dilations must be positive"),
            std::string::npos);
}

TEST(OnnxImport, TensorsRoundTripThroughTheTestDataFormat) {
  NDArray a(DataType::Float32(), {2, 3});
  a.fill_random(5);
  NDArray b = tensor_from_bytes(tensor_to_bytes(a, "x"), "x");
  ASSERT_EQ(b.shape(), a.shape());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a.get(i), b.get(i));
}

TEST(OnnxImport, ATensorClaimingMoreThanItHoldsIsRefusedBeforeItIsAllocated) {
  // Found by fuzz_onnx_model (fuzz/corpus/onnx_model/finding-constant-claims-16gib.onnx):
  // a Constant of a few bytes claimed [2^28 - 3, 16] floats, and 16 GiB
  // were allocated before its values were counted.
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(268435453);
  t.add_dims(16);
  EXPECT_NE(error_of([&] { tensor_from_bytes(t.SerializeAsString(), "w"); }).find("w holds 0 values for 4294967248 elements"),
            std::string::npos);
  t.set_raw_data("abcd");
  EXPECT_NE(error_of([&] { tensor_from_bytes(t.SerializeAsString(), "w"); }).find("w holds 4 bytes for 4294967248 elements"),
            std::string::npos);
}

TEST(OnnxImport, EveryOperatorOfTheListHasARule) {
  for (const char* op : {"Conv", "Gemm", "MatMul", "BatchNormalization", "Relu", "Clip", "Sigmoid", "Tanh", "Erf",
                         "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "MaxPool", "AveragePool", "GlobalAveragePool",
                         "Softmax", "LayerNormalization", "ReduceMean", "Reshape", "Transpose", "Flatten", "Squeeze",
                         "Unsqueeze", "Concat", "Slice", "Pad", "Gather", "Constant", "Identity", "Dropout", "Shape",
                         "ConstantOfShape"})
    EXPECT_NE(find_op_def(op), nullptr) << op;
}

}  // namespace
}  // namespace kiln::graph
