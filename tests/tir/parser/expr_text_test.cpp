// Expressions: every spelling of docs/ir_text.md (Expressions) reads back to
// the node it names, with its type, and prints as written.
#include <cmath>
#include <limits>

#include "round_trip.h"

namespace kiln {
namespace {

class ParseExpr : public ::testing::Test {
 protected:
  Var x{"x"}, y{"y"}, z{"z"};
  Buffer A{"A", DataType::Float32(), {64, 32}};

  Expr parse(const std::string& text) { return parse_expr(text, {.vars = {x, y, z}, .buffers = {A}}); }
  // Parses and checks that the text prints back unchanged.
  Expr exact(const std::string& text) {
    Expr e = parse(text);
    EXPECT_EQ(to_string(e), text);
    return e;
  }
};

Expr bin(ExprKind k, Expr a, Expr b) { return make_binary(k, std::move(a), std::move(b)); }

TEST_F(ParseExpr, OperatorsKeepTheirTree) {
  EXPECT_TRUE(structural_equal(exact("x + y * 2"), bin(ExprKind::Add, x, bin(ExprKind::Mul, y, 2))));
  EXPECT_TRUE(structural_equal(exact("x - (y - z)"), bin(ExprKind::Sub, x, bin(ExprKind::Sub, y, z))));
  EXPECT_TRUE(structural_equal(exact("x + (y + z)"), bin(ExprKind::Add, x, bin(ExprKind::Add, y, z))));
  // Constants are not folded.
  EXPECT_TRUE(structural_equal(exact("2 + 3"), bin(ExprKind::Add, 2, 3)));
  EXPECT_TRUE(structural_equal(exact("(x + y) // 4 % 3"),
                               bin(ExprKind::FloorMod, bin(ExprKind::FloorDiv, x + y, 4), 3)));
  EXPECT_TRUE(structural_equal(exact("x * -3"), bin(ExprKind::Mul, x, -3)));
  EXPECT_TRUE(structural_equal(exact("x - -3"), bin(ExprKind::Sub, x, -3)));
  exact("-3 // 2");
  exact("T.truncdiv(x + 1, 4) * 2");
  exact("T.truncmod(x, 4)");
  exact("T.min(x, y + 1)");
  exact("T.max(x, y) * 2");
  exact("x < y and (y == z or not x != z)");
  exact("(x < y) == (y < z)");
  exact("not (x < y and y < z)");
}

TEST_F(ParseExpr, TypedImmediates) {
  EXPECT_EQ(exact("T.int64(3)").dtype(), DataType::Int64());
  EXPECT_EQ(*as_const_int(exact("T.int8(-128)")), -128);
  exact("T.uint8(255)");
  EXPECT_EQ(*as_const_int(exact("T.uint64(18446744073709551615)")), -1);
  EXPECT_EQ(exact("True").dtype(), DataType::Bool());
  exact("False");
  exact("T.float32(1.5)");
  exact("T.float16(-2.5)");
  exact("T.float64(0.1)");
  exact("T.bfloat16(0.5)");
  exact("T.float64(1e+300)");
  exact("T.float32(-0)");
  EXPECT_TRUE(std::signbit(*as_const_float(parse("T.float32(-0)"))));
  // A float32 that is not a short double: 0.1f read as a float, not as 0.1.
  EXPECT_EQ(*as_const_float(exact("T.float32(0.1)")), static_cast<double>(0.1f));
  EXPECT_EQ(*as_const_float(exact("T.float64(0.10000000149011612)")), static_cast<double>(0.1f));
  EXPECT_TRUE(std::isinf(*as_const_float(exact("T.float32(\"inf\")"))));
  exact("T.float64(\"-inf\")");
  EXPECT_TRUE(std::isnan(*as_const_float(exact("T.float32(\"nan\")"))));
  EXPECT_EQ(exact("\"a \\\"quoted\\\"\\n\\x01 text\"").as<StringImmNode>()->value, "a \"quoted\"\n\x01 text");
}

TEST_F(ParseExpr, NodesWithoutOperators) {
  Expr sel = exact("T.Select(x < 4, x, 0)");
  EXPECT_EQ(sel.kind(), ExprKind::Select);
  // Constant conditions and operands stay as written.
  EXPECT_EQ(exact("T.Select(True, 1, 2)").kind(), ExprKind::Select);
  EXPECT_EQ(exact("T.Cast(\"float32\", 1)").kind(), ExprKind::Cast);
  EXPECT_EQ(exact("T.Cast(\"float32x4\", T.Ramp(x, 1, 4))").dtype(), DataType::Float(32, 4));
  EXPECT_EQ(exact("T.Broadcast(T.float32(1), 8)").dtype(), DataType::Float(32, 8));
  EXPECT_EQ(exact("T.Ramp(x * 8, 2, 8) + T.Broadcast(y, 8)").dtype(), DataType::Int(32, 8));
  exact("A[x, T.Ramp(0, 1, 4)]");
  Expr l = exact("T.Let(t, x + 1, t * t)");
  EXPECT_EQ(l.kind(), ExprKind::Let);
  exact("T.exp(A[x, y]) + T.pow(A[x, y], T.float32(2)) + T.fma(A[0, 0], A[1, 1], T.float32(0.5))");
  exact("T.sqrt(T.float32(2)) + T.tanh(A[0, 0]) + T.sigmoid(A[0, 1])");
}

TEST_F(ParseExpr, ReductionsBindTheirAxes) {
  Expr s = exact("T.sum(A[x, k], axis=[T.reduce_axis(k, 32)])");
  const auto* r = s.as<ReduceNode>();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->combiner, ReduceKind::kSum);
  EXPECT_TRUE(r->axis[0].is_reduce());
  exact("T.max(A[i, k], axis=[T.spatial_axis(i, 64), T.reduce_axis(k, (2, 34))])");
  EXPECT_EQ(exact("T.min(A[x, k], axis=[T.reduce_axis(k, T.int64(32), dtype=\"int32\")])").as<ReduceNode>()->combiner,
            ReduceKind::kMin);
  EXPECT_EQ(exact("T.prod(A[x, k], axis=[T.reduce_axis(k, 8)])").as<ReduceNode>()->combiner, ReduceKind::kProd);
  // The binary T.min is still a Min.
  EXPECT_EQ(exact("T.min(x, y)").kind(), ExprKind::Min);
}

TEST_F(ParseExpr, FreeVariablesOfOtherTypesCarryTheirType) {
  Var n("n", DataType::Int64());
  Expr e = n * Expr(int64_t{4});
  std::string text = to_string(e);
  EXPECT_EQ(text, "T.Var(\"n\", \"int64\") * T.int64(4)");
  Expr back = parse_expr(text);
  EXPECT_TRUE(structural_equal(back, e, FreeVars::kMap)) << "n is read back as a new variable";
  // Both uses are one variable.
  Expr twice = parse_expr("T.Var(\"n\", \"int64\") + T.Var(\"n\", \"int64\")");
  const auto* add = twice.as<AddNode>();
  EXPECT_TRUE(add->a.same_as(add->b));
}

TEST_F(ParseExpr, PrintedExpressionsOfEveryKindReadBack) {
  std::vector<Expr> exprs = {
      cast(DataType::Float32(), x) / float_imm(DataType::Float32(), 3),
      select(x < 4 && y >= 2, x, y),
      logical_not(x > y) || x <= y,
      ne(x, y),
      call(Intrinsic::log, {float_imm(DataType::Float(64), 2)}),
      call(Intrinsic::abs, {cast(DataType::Float(16), x)}),
      call(Intrinsic::floor, {float_imm(DataType::Float32(), 1.5)}),
      buffer_load(A, {ramp(x, 1, 4), broadcast(y, 4)}),
      reduce(ReduceKind::kSum, buffer_load(A, {x, z}), {IterVar(z, Range(0, 32), IterType::kReduce)}),
  };
  for (const Expr& e : exprs) {
    std::string text = to_string(e);
    Expr back = parse_expr(text, {.vars = {x, y}, .buffers = {A}});
    EXPECT_TRUE(structural_equal(back, e)) << text;
    EXPECT_EQ(to_string(back), text);
  }
}

}  // namespace
}  // namespace kiln
