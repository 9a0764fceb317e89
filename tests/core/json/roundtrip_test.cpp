// IR -> JSON -> IR gives the same program, the same sharing, and the same
// bytes when written again.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/json.h"
#include "core/structural.h"
#include "samples.h"

namespace kiln {
namespace {

using testing::sample_expr;
using testing::sample_matmul;
using testing::sample_stmt;

ObjectRef round_trip(const ObjectRef& x) { return load_json(save_json(x)); }

TEST(JsonRoundTrip, EveryExpressionKind) {
  for (int i = 0; i < kNumExprKinds; ++i) {
    auto k = static_cast<ExprKind>(i);
    Expr e = sample_expr(k);
    ObjectRef back = round_trip(e);
    EXPECT_TRUE(structural_equal(e, back, FreeVars::kMap)) << expr_kind_name(k);
    EXPECT_FALSE(back.same_as(e));
    EXPECT_EQ(save_json(back), save_json(e)) << expr_kind_name(k);
  }
}

TEST(JsonRoundTrip, EveryStatementKind) {
#define X(Name)                                                       \
  {                                                                   \
    Stmt s = sample_stmt(StmtKind::Name);                             \
    ObjectRef back = round_trip(s);                                   \
    EXPECT_TRUE(structural_equal(s, back, FreeVars::kMap)) << #Name;  \
    EXPECT_EQ(save_json(back), save_json(s)) << #Name;                \
  }
  KILN_FOR_EACH_STMT(X)
#undef X
}

TEST(JsonRoundTrip, SharedVariableStaysOneObject) {
  Var x("x");
  Expr e = x * x + 1;
  Expr back = load_json_as<Expr>(save_json(e));
  ASSERT_TRUE(structural_equal(e, back, FreeVars::kMap));
  const auto* mul = back.as<AddNode>()->a.as<MulNode>();
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(mul->a.same_as(mul->b));
  // Two distinct variables with one name stay two.
  Var x2("x");
  Expr two = load_json_as<Expr>(save_json(x * x2));
  EXPECT_FALSE(two.as<MulNode>()->a.same_as(two.as<MulNode>()->b));
  EXPECT_TRUE(structural_equal(two, x * x2, FreeVars::kMap));
  EXPECT_FALSE(structural_equal(two, x * x, FreeVars::kMap));
}

TEST(JsonRoundTrip, MatmulPrimFuncKeepsBufferAndVarIdentity) {
  PrimFunc f = sample_matmul();
  PrimFunc back = load_json_as<PrimFunc>(save_json(f));
  EXPECT_TRUE(structural_equal(f, back));
  EXPECT_EQ(back.name(), "matmul");
  // The parameter C and the buffer the block writes are one object.
  const Buffer& c_param = back.params()[2];
  const auto* root = back.body().as<BlockRealizeNode>()->block.as<BlockNode>();
  ASSERT_NE(root, nullptr);
  const auto* i_loop = root->body.as<ForNode>();
  const auto* j_loop = i_loop->body.as<ForNode>();
  const auto* k_loop = j_loop->body.as<ForNode>();
  const auto* realize = k_loop->body.as<BlockRealizeNode>();
  const auto* c = realize->block.as<BlockNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->writes[0].buffer().same_as(c_param));
  EXPECT_TRUE(c->body.as<BufferStoreNode>()->buffer.same_as(c_param));
  // The loop variable and the realize's binding are one Var, and so are the
  // block's iter var and its uses.
  EXPECT_TRUE(realize->iter_values[0].same_as(i_loop->loop_var));
  EXPECT_TRUE(c->init.as<BufferStoreNode>()->indices[0].same_as(c->iter_vars[0].var()));
  EXPECT_EQ(root->alloc_buffers[0]->scope, "local");
}

TEST(JsonRoundTrip, ModulesAndUndefinedRoots) {
  IRModule m({{"matmul", sample_matmul()}});
  IRModule back = load_json_as<IRModule>(save_json(m));
  EXPECT_TRUE(structural_equal(m, back));
  EXPECT_EQ(back.main().name(), "matmul");
  EXPECT_FALSE(load_json(save_json(ObjectRef())).defined());
}

TEST(JsonRoundTrip, FloatsAreExact) {
  const double cases[] = {0.1,
                          -0.0,
                          1e-310,  // subnormal
                          std::numeric_limits<double>::max(),
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(),
                          1.0 / 3.0};
  for (double d : cases) {
    Expr e = float_imm(DataType::Float(64), d);
    Expr back = load_json_as<Expr>(save_json(e));
    double got = *as_const_float(back);
    if (std::isnan(d)) {
      EXPECT_TRUE(std::isnan(got));
    } else {
      EXPECT_EQ(std::memcmp(&got, &d, sizeof d), 0) << d;  // bit-exact, sign of zero included
    }
  }
  Expr f = float_imm(DataType::Float32(), 0.1);
  EXPECT_EQ(*as_const_float(load_json_as<Expr>(save_json(f))), static_cast<double>(0.1f));
}

TEST(JsonRoundTrip, ExtremeIntegersAndStrings) {
  Expr big = int_imm(DataType::Int64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*as_const_int(load_json_as<Expr>(save_json(big))), std::numeric_limits<int64_t>::min());
  Expr u = int_imm(DataType::UInt(64), -1);
  EXPECT_TRUE(structural_equal(load_json(save_json(u)), u));
  Expr s = string_imm("quote \" backslash \\ newline \n tab \t");
  EXPECT_TRUE(structural_equal(load_json(save_json(s)), s));
}

TEST(JsonFormat, DocumentShape) {
  Var i("i");
  nlohmann::json j = to_json(i + 1);
  EXPECT_EQ(j["kiln_ir"], kIrJsonVersion);
  ASSERT_EQ(j["nodes"].size(), 3u);
  EXPECT_EQ(j["root"], 2);
  EXPECT_EQ(j["nodes"][0], nlohmann::json::parse(R"({"type": "Var", "dtype": {"dtype": "int32"}, "name": "i"})"));
  EXPECT_EQ(j["nodes"][1], nlohmann::json::parse(R"({"type": "IntImm", "dtype": {"dtype": "int32"}, "value": 1})"));
  EXPECT_EQ(j["nodes"][2], nlohmann::json::parse(
                               R"({"type": "Add", "dtype": {"dtype": "int32"}, "a": {"node": 0}, "b": {"node": 1}})"));
  // Floats, enums, maps and absent children.
  nlohmann::json f = to_json(float_imm(DataType::Float32(), std::numeric_limits<double>::infinity()));
  EXPECT_EQ(f["nodes"][0]["value"], nlohmann::json::parse(R"({"float": "inf"})"));
  Stmt loop = for_loop(i, 0, 4, ForKind::kUnrolled, if_then_else(i < 2, evaluate(i)), "", {{"k", Expr(1)}});
  nlohmann::json l = to_json(loop);
  const nlohmann::json& for_node = l["nodes"][l["root"].get<size_t>()];
  EXPECT_EQ(for_node["for_kind"], 3);
  EXPECT_EQ(for_node["thread_tag"], "");
  ASSERT_TRUE(for_node["annotations"].is_array());
  EXPECT_EQ(for_node["annotations"][0][0], "k");
  const nlohmann::json& if_node = l["nodes"][for_node["body"]["node"].get<size_t>()];
  EXPECT_TRUE(if_node["else_case"].is_null());
  // Enumerations travel as integers; docs/ir_json.md pins their values.
  Var h("h", DataType::Float32());
  nlohmann::json c = to_json(call(Intrinsic::fma, {h, h, h}));
  EXPECT_EQ(c["nodes"][c["root"].get<size_t>()]["op"], 12);
  nlohmann::json r = to_json(reduce(ReduceKind::kMin, h, {IterVar(i, Range(0, 4), IterType::kReduce)}));
  const nlohmann::json& red = r["nodes"][r["root"].get<size_t>()];
  EXPECT_EQ(red["combiner"], 2);
  EXPECT_EQ(r["nodes"][red["axis"][0]["node"].get<size_t>()]["iter_type"], 1);
}

TEST(JsonFormat, Deterministic) {
  // Built twice from scratch: different objects, the same bytes.
  std::string a = save_json(sample_matmul());
  std::string b = save_json(sample_matmul());
  EXPECT_EQ(a, b);
  EXPECT_EQ(save_json(load_json(a)), a);
  EXPECT_EQ(a.find_first_of(" \n"), std::string::npos) << "compact output has no whitespace";
  EXPECT_NE(save_json(sample_matmul(), 2).find('\n'), std::string::npos);
}

TEST(JsonFormat, SharedSubtreesAreWrittenOnce) {
  Var x("x");
  Expr s = x * 3;
  Expr e = s + s;  // one Mul object used twice
  nlohmann::json j = to_json(e);
  EXPECT_EQ(j["nodes"].size(), 4u);  // x, 3, x * 3, +
  Expr back = load_json_as<Expr>(j.dump());
  EXPECT_TRUE(back.as<AddNode>()->a.same_as(back.as<AddNode>()->b));
}

TEST(JsonFormat, DeepExpressionsDoNotOverflowTheWriter) {
  Var x("x");
  Expr e = x;
  for (int i = 0; i < 20000; ++i) e = make_binary(ExprKind::Add, e, x);
  nlohmann::json j = to_json(e);
  EXPECT_EQ(j["nodes"].size(), 20001u);  // x and 20000 adds
}

}  // namespace
}  // namespace kiln
