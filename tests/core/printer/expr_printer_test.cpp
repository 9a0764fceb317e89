// Golden tests of the expression text (docs/ir_text.md): one per spelling,
// and the precedence rules that decide parentheses.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "core/printer.h"

namespace kiln {
namespace {

// make_binary builds without folding or type matching, so a test can shape
// the tree exactly.
Expr bin(ExprKind k, Expr a, Expr b) { return make_binary(k, std::move(a), std::move(b)); }

class ExprPrinter : public ::testing::Test {
 protected:
  Var x{"x"}, y{"y"}, z{"z"};
  Var f{"f", DataType::Float32()};
  Var g{"g", DataType::Float32()};
  Var p{"p", DataType::Bool()};
  Var q{"q", DataType::Bool()};

  // Prints with f, g, p and q declared, as their binders would in a
  // function; undeclared, they would print as T.Var("f", "float32").
  std::string show(const Expr& e) {
    PrintContext ctx;
    for (const Var& v : {f, g, p, q}) ctx.declare(v);
    return ctx.str(e);
  }
};

TEST_F(ExprPrinter, Arithmetic) {
  EXPECT_EQ(to_string(x + y * 2), "x + y * 2");
  EXPECT_EQ(to_string((x + y) * 2), "(x + y) * 2");
  EXPECT_EQ(to_string(x - y - z), "x - y - z");
  EXPECT_EQ(to_string(bin(ExprKind::Sub, x, bin(ExprKind::Sub, y, z))), "x - (y - z)");
  // Left-nested sums need no parentheses, right-nested ones keep the tree.
  EXPECT_EQ(to_string(bin(ExprKind::Add, x, bin(ExprKind::Add, y, z))), "x + (y + z)");
  EXPECT_EQ(to_string(x * y * z), "x * y * z");
  EXPECT_EQ(to_string(floordiv(x, 4)), "x // 4");
  EXPECT_EQ(to_string(floormod(x, 4)), "x % 4");
  EXPECT_EQ(to_string(floormod(floordiv(x + y, 4), 3)), "(x + y) // 4 % 3");
  EXPECT_EQ(to_string(floordiv(x, floormod(y, 3))), "x // (y % 3)");
  EXPECT_EQ(to_string(x * -3), "x * -3");
  EXPECT_EQ(to_string(bin(ExprKind::Sub, x, Expr(-3))), "x - -3");
}

TEST_F(ExprPrinter, TruncatingDivisionIsSpelledOutForIntegers) {
  EXPECT_EQ(show(div(x, 4)), "T.truncdiv(x, 4)");
  EXPECT_EQ(show(mod(x, 4)), "T.truncmod(x, 4)");
  EXPECT_EQ(show(div(f, g)), "f / g");
  EXPECT_EQ(show(div(f + g, g)), "(f + g) / g");
  EXPECT_EQ(show(div(x + 1, 4) * 2), "T.truncdiv(x + 1, 4) * 2");
}

TEST_F(ExprPrinter, MinMaxAndIntrinsics) {
  EXPECT_EQ(show(min(x, y + 1)), "T.min(x, y + 1)");
  EXPECT_EQ(show(max(x, y) * 2), "T.max(x, y) * 2");
  EXPECT_EQ(show(call(Intrinsic::exp, {f})), "T.exp(f)");
  EXPECT_EQ(show(call(Intrinsic::fma, {f, g, f})), "T.fma(f, g, f)");
  EXPECT_EQ(show(call(Intrinsic::pow, {f, g})), "T.pow(f, g)");
}

TEST_F(ExprPrinter, ComparisonsNeverChain) {
  EXPECT_EQ(show(x < y), "x < y");
  EXPECT_EQ(show(x + 1 <= y * 2), "x + 1 <= y * 2");
  EXPECT_EQ(show(eq(x, y)), "x == y");
  EXPECT_EQ(show(ne(x, y)), "x != y");
  EXPECT_EQ(show(gt(x, y)), "x > y");
  EXPECT_EQ(show(ge(x, y)), "x >= y");
  // Python reads `x < y == p` as a chain, so the inner comparison keeps its
  // parentheses on either side.
  EXPECT_EQ(show(bin(ExprKind::EQ, x < y, p)), "(x < y) == p");
  EXPECT_EQ(show(bin(ExprKind::EQ, p, x < y)), "p == (x < y)");
}

TEST_F(ExprPrinter, Logic) {
  EXPECT_EQ(show(p && q), "p and q");
  EXPECT_EQ(show(p || q), "p or q");
  EXPECT_EQ(show(!p), "not p");
  EXPECT_EQ(show((x < y) && (y < z)), "x < y and y < z");
  EXPECT_EQ(show((p || q) && p), "(p or q) and p");
  EXPECT_EQ(show(p || (q && p)), "p or q and p");
  EXPECT_EQ(show(!(x < y)), "not x < y");
  EXPECT_EQ(show(!(p && q)), "not (p and q)");
  EXPECT_EQ(show(bin(ExprKind::EQ, !p, q)), "(not p) == q");
  EXPECT_EQ(show(!!p), "not not p");
}

TEST_F(ExprPrinter, Immediates) {
  EXPECT_EQ(to_string(Expr(3)), "3");
  EXPECT_EQ(to_string(Expr(-3)), "-3");
  EXPECT_EQ(to_string(Expr(int64_t{3})), "T.int64(3)");
  EXPECT_EQ(to_string(int_imm(DataType::Int(8), -5)), "T.int8(-5)");
  EXPECT_EQ(to_string(int_imm(DataType::UInt(64), -1)), "T.uint64(18446744073709551615)");
  EXPECT_EQ(to_string(int_imm(DataType::Bool(), 1)), "True");
  EXPECT_EQ(to_string(int_imm(DataType::Bool(), 0)), "False");
  EXPECT_EQ(to_string(Expr(1.5f)), "T.float32(1.5)");
  EXPECT_EQ(to_string(Expr(0.0f)), "T.float32(0)");
  EXPECT_EQ(to_string(Expr(0.1f)), "T.float32(0.1)");
  EXPECT_EQ(to_string(float_imm(DataType::Float(64), 0.1)), "T.float64(0.1)");
  // Only a float32 may print as the shortest float: this float64 is not 0.1.
  EXPECT_EQ(to_string(float_imm(DataType::Float(64), static_cast<double>(0.1f))), "T.float64(0.10000000149011612)");
  EXPECT_EQ(to_string(float_imm(DataType::Float32(), 0.1)), "T.float32(0.1)");
  EXPECT_EQ(to_string(float_imm(DataType::Float(64), 1e300)), "T.float64(1e+300)");
  EXPECT_EQ(to_string(float_imm(DataType::Float(16), -2.5)), "T.float16(-2.5)");
  EXPECT_EQ(to_string(float_imm(DataType::Float32(), std::numeric_limits<double>::infinity())), "T.float32(\"inf\")");
  EXPECT_EQ(to_string(float_imm(DataType::Float32(), -std::numeric_limits<double>::infinity())),
            "T.float32(\"-inf\")");
  EXPECT_EQ(to_string(float_imm(DataType::Float(64), std::numeric_limits<double>::quiet_NaN())), "T.float64(\"nan\")");
  EXPECT_EQ(to_string(string_imm("a \"b\"\n\\")), R"("a \"b\"\n\\")");
}

TEST_F(ExprPrinter, VectorsCastsAndSelect) {
  EXPECT_EQ(show(ramp(x, 1, 8)), "T.Ramp(x, 1, 8)");
  EXPECT_EQ(show(broadcast(f, 8)), "T.Broadcast(f, 8)");
  EXPECT_EQ(show(ramp(x * 8, 2, 4) + broadcast(y, 4)), "T.Ramp(x * 8, 2, 4) + T.Broadcast(y, 4)");
  EXPECT_EQ(show(cast(DataType::Float32(), x)), "T.Cast(\"float32\", x)");
  EXPECT_EQ(show(cast(DataType::Float(32, 4), ramp(x, 1, 4))), "T.Cast(\"float32x4\", T.Ramp(x, 1, 4))");
  EXPECT_EQ(show(select(x < 4, x, y + 1)), "T.Select(x < 4, x, y + 1)");
}

TEST_F(ExprPrinter, LoadsLetsAndReductions) {
  Buffer A("A", DataType::Float32(), {16, 32});
  Buffer S("S", DataType::Float32(), {});
  Var k("k");
  EXPECT_EQ(to_string(buffer_load(A, {x, y + 1})), "A[x, y + 1]");
  EXPECT_EQ(to_string(buffer_load(S, {})), "S[()]");
  EXPECT_EQ(to_string(buffer_load(A, {x, y}) * 2.0f), "A[x, y] * T.float32(2)");
  Var v("v");
  EXPECT_EQ(to_string(let(v, x + 1, v * v)), "T.Let(v, x + 1, v * v)");
  Expr r = reduce(ReduceKind::kSum, buffer_load(A, {x, k}), {IterVar(k, Range(0, 32), IterType::kReduce)});
  EXPECT_EQ(to_string(r), "T.sum(A[x, k], axis=[T.reduce_axis(k, 32)])");
  EXPECT_EQ(to_string(r + 1.0f), "T.sum(A[x, k], axis=[T.reduce_axis(k, 32)]) + T.float32(1)");
  Var m("m");
  Expr r2 = reduce(ReduceKind::kMax, buffer_load(A, {m, k}),
                   {IterVar(m, Range(2, 14), IterType::kReduce), IterVar(k, Range(0, 32), IterType::kReduce)});
  EXPECT_EQ(to_string(r2), "T.max(A[m, k], axis=[T.reduce_axis(m, (2, 16)), T.reduce_axis(k, 32)])");
}

TEST_F(ExprPrinter, VariablesThatAreNotInt32CarryTheirType) {
  Var n("n", DataType::Int64());
  EXPECT_EQ(to_string(n + Expr(int64_t{1})), "T.Var(\"n\", \"int64\") + T.int64(1)");
  EXPECT_EQ(to_string(f), "T.Var(\"f\", \"float32\")");
  // A bound variable is declared by its binder and then printed bare.
  Var v("v", DataType::Int64());
  EXPECT_EQ(to_string(let(v, Expr(int64_t{2}), v * v)), "T.Let(v, T.int64(2), v * v)");
  Var k("k", DataType::Int64());
  Buffer A("A", DataType::Float32(), {Expr(int64_t{8})});
  Expr r = reduce(ReduceKind::kMin, buffer_load(A, {k}),
                  {IterVar(k, Range(Expr(int64_t{0}), Expr(int64_t{8})), IterType::kReduce)});
  EXPECT_EQ(to_string(r), "T.min(A[k], axis=[T.reduce_axis(k, T.int64(8))])");
  // A variable whose type is not its domain's says so.
  Var j("j", DataType::Int64());
  Expr r3 = reduce(ReduceKind::kSum, buffer_load(A, {j}), {IterVar(j, Range(0, 8), IterType::kReduce)});
  EXPECT_EQ(to_string(r3), "T.sum(A[j], axis=[T.reduce_axis(j, 8, dtype=\"int64\")])");
}

TEST_F(ExprPrinter, DistinctVariablesWithOneNameGetSuffixes) {
  Var x2("x"), x3("x");
  EXPECT_EQ(to_string(x + x2 * x3 + x), "x + x_1 * x_2 + x");
  Var t("T"), bad("i.outer"), digit("0i"), empty(""), kw("lambda");
  EXPECT_EQ(to_string(t + bad + digit + empty + kw), "T_1 + i_outer + v_0i + v + lambda_1");
  // A suffixed name does not steal the name of a variable that has it.
  Var i("i"), i2("i"), i1("i_1");
  EXPECT_EQ(to_string(i + i2 + i1), "i + i_1 + i_1_1");
}

TEST_F(ExprPrinter, StreamOperatorAndSharedContext) {
  std::ostringstream os;
  os << x + 1;
  EXPECT_EQ(os.str(), "x + 1");
  // One context names consistently across several expressions.
  Var x2("x");
  PrintContext ctx;
  EXPECT_EQ(ctx.str(x2 + 1), "x + 1");
  EXPECT_EQ(ctx.str(x * x2), "x_1 * x");
  EXPECT_EQ(ctx.stop(x, Expr(4)), "x_1 + 4");
  EXPECT_EQ(ctx.stop(Expr(2), Expr(4)), "6");
  EXPECT_EQ(ctx.stop(Expr(0), y), "y");
  EXPECT_EQ(ctx.stop(x * 4, y - 1), "x_1 * 4 + (y - 1)");
}

TEST_F(ExprPrinter, BufferDeclarations) {
  PrintContext ctx;
  EXPECT_EQ(ctx.buffer_args(Buffer("A", DataType::Float32(), {64, 32})), "(64, 32), \"float32\"");
  EXPECT_EQ(ctx.buffer_args(Buffer("B", DataType::Int(8), {16}, "shared")), "(16,), \"int8\", scope=\"shared\"");
  EXPECT_EQ(ctx.buffer_args(Buffer("C", DataType::Float32(), {})), "(), \"float32\"");
  auto n = std::make_shared<BufferNode>(*Buffer("D", DataType::Float32(), {4, 8}));
  n->align_factor = 16;
  n->align_offset = 1;
  EXPECT_EQ(ctx.buffer_args(Buffer(ObjectPtr(n))), "(4, 8), \"float32\", align_axis=0, align_factor=16, align_offset=1");
}

}  // namespace
}  // namespace kiln
