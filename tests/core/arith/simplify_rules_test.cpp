// The simplifier's rules, one check(input, expected) per behaviour, grouped
// by the file that implements them. Expected forms are compared exactly
// (structural_equal: the same free variables, never y + x for x + y) and
// both sides are printed on failure.
#include <gtest/gtest.h>

#include "core/arith/analyzer.h"
#include "core/functor.h"
#include "core/printer.h"
#include "core/structural.h"

namespace kiln {
namespace {

using arith::IntBound;

class Rules : public ::testing::Test {
 protected:
  Rules() {
    ana.bind(i, Range(Expr(0), Expr(16)));
    ana.bind(j, Range(Expr(0), Expr(8)));
    ana.bind(k, Range(Expr(0), Expr(4)));
  }

  void check(const Expr& in, const Expr& expected) {
    Expr out = ana.simplify(in);
    EXPECT_TRUE(structural_equal(out, expected)) << "  input: " << to_string(in) << "\n    got: " << to_string(out)
                                                  << "\n   want: " << to_string(expected);
  }
  // Expressions the simplifier must leave alone, as the very same node.
  void keep(const Expr& in) {
    Expr out = ana.simplify(in);
    EXPECT_TRUE(out.same_as(in)) << "  input: " << to_string(in) << "\n    got: " << to_string(out);
  }

  // Nodes built without the constructors' constant folding.
  static Expr raw(ExprKind k, Expr a, Expr b) { return make_binary(k, std::move(a), std::move(b)); }
  static Expr raw_cast(DataType t, Expr v) {
    auto n = std::make_shared<CastNode>();
    n->dtype = t;
    n->value = std::move(v);
    return Expr(std::move(n));
  }
  static Expr fd(Expr a, int64_t c) { return floordiv(std::move(a), Expr(static_cast<int>(c))); }
  static Expr fm(Expr a, int64_t c) { return floormod(std::move(a), Expr(static_cast<int>(c))); }
  static Expr f32(float v) { return Expr(v); }
  static Expr t() { return int_imm(DataType::Bool(), 1); }
  static Expr f() { return int_imm(DataType::Bool(), 0); }

  arith::Analyzer ana;
  Var x{"x"}, y{"y"}, z{"z"};
  Var i{"i"}, j{"j"}, k{"k"};  // i in [0, 16), j in [0, 8), k in [0, 4)
  Var b{"b", DataType::Bool()}, c{"c", DataType::Bool()};
  Var fx{"fx", DataType::Float32()};
};

TEST_F(Rules, ConstantFolding) {
  check(raw(ExprKind::Add, Expr(2), Expr(3)), Expr(5));
  check(raw(ExprKind::FloorDiv, Expr(-7), Expr(2)), Expr(-4));
  check(raw(ExprKind::FloorMod, Expr(-7), Expr(2)), Expr(1));
  check(raw(ExprKind::Div, Expr(-7), Expr(2)), Expr(-3));
  check(raw(ExprKind::Mul, f32(1.5f), f32(2.0f)), f32(3.0f));
  check(raw(ExprKind::LT, Expr(2), Expr(3)), t());
  check(raw_cast(DataType::Int64(), Expr(3)), Expr(int64_t{3}));
  // A division by a zero constant is left for the program to report.
  keep(raw(ExprKind::FloorDiv, x, Expr(0)));
}

TEST_F(Rules, Add) {
  check(Expr(2) + x, x + 2);
  check(raw(ExprKind::Add, x, Expr(0)), x);
  check((x + 2) + 3, x + 5);
  check((x + 2) + y, (x + y) + 2);
  check(x + (y + 3), (x + y) + 3);
  check(x * 3 + x * 5, x * 8);
  check(x + x, x * 2);
  check(x * 4 + x, x * 5);
  check((x - y) + y, x);
  check(fd(x, 8) * 8 + fm(x, 8), x);
  check((y + fd(x, 4) * 4) + fm(x, 4), y + x);
  check(min(x, y) + max(x, y), x + y);
  check((x + y) + (Expr(0) - x), y);
  check(select(c, x, y) + select(c, z, Expr(1)), select(c, x + z, y + 1));
  keep(x + y);
}

TEST_F(Rules, AddFloatIsExactOnly) {
  check(f32(2.0f) + fx, fx + f32(2.0f));
  keep(fx + f32(0.0f));  // -0.0 + 0.0 is +0.0
  keep((fx + f32(1.0f)) + f32(2.0f));  // not associative
}

TEST_F(Rules, Sub) {
  check(x - x, Expr(0));
  check(x - 3, x + (-3));
  check((x + y) - x, y);
  check(x - (x + y), Expr(0) - y);
  check((x + 5) - y, (x - y) + 5);
  check(Expr(10) - (x + 3), Expr(7) - x);
  check(Expr(10) - (Expr(3) - x), x + 7);
  check(x * 5 - x * 2, x * 3);
  check(x - fd(x, 8) * 8, fm(x, 8));
  check(x - min(x, y), max(x - y, Expr(0)));
  check((x + y * 2 + 3) - (y + 3 + x), y);
  keep(fx - fx);  // NaN - NaN is NaN
}

TEST_F(Rules, Mul) {
  check(Expr(3) * x, x * 3);
  check(x * 1, x);
  check(x * 0, Expr(0));
  check((x * 3) * 4, x * 12);
  check((x + 2) * 3, x * 3 + 6);
  check((x * 2) * y, (x * y) * 2);
  check(x * -1, Expr(0) - x);
  check(fx * f32(1.0f), fx);
  keep(fx * f32(0.0f));  // NaN * 0 is NaN
}

TEST_F(Rules, Div) {
  check(fd(i, 16), Expr(0));
  check(fd(x * 8 + y, 8), x + fd(y, 8));
  check(fd(x * 8 + j, 8), x);
  check(fd(x * 4 + k, 8), fd(x, 2));
  check(fd(fd(x, 4), 8), fd(x, 32));
  check(fd(x + 16, 8), fd(x, 8) + 2);
  check(fd(x * 8 + y * 16 + z, 8), (x + y * 2) + fd(z, 8));
  check(fd(i + 16, 16), Expr(1));
  check(fd(x * 6, 3), x * 2);
  check(fd(x * 2, 6), fd(x, 3));
  check(i / 4, fd(i, 4));
  check(raw(ExprKind::Div, x, Expr(1)), x);
  check(raw(ExprKind::FloorDiv, x, Expr(1)), x);
  keep(x / 4);  // x may be negative: truncation differs
}

TEST_F(Rules, Mod) {
  check(fm(x * 8 + y, 8), fm(y, 8));
  check(fm(i, 16), i);
  check(fm(i + 16, 16), i);
  check(fm(x * 4 + k, 8), fm(x, 2) * 4 + k);
  check(fm(x + 10, 8), fm(x + 2, 8));
  check(fm(fm(x, 16), 8), fm(x, 8));
  check(fm(x * 12, 4), Expr(0));
  check(fm(x * 2, 8), fm(x, 4) * 2);
  check(fm(x, 1), Expr(0));
  check(i % 4, fm(i, 4));
  check(i % -4, fm(i, 4));
  check((x * 8) % 4, Expr(0));
  keep(x % 4);
}

TEST_F(Rules, MinMax) {
  check(min(x, x), x);
  check(min(Expr(5), x), min(x, 5));
  check(min(i, 16), i);
  check(min(i, 15), i);
  check(max(i, 0), i);
  check(max(i, -3), i);
  check(min(x + 1, x), x);
  check(max(x + 1, x + 3), x + 3);
  check(min(min(x, 3), 5), min(x, 3));
  check(min(min(x, 3), y), min(min(x, y), 3));
  check(min(x, max(x, y)), x);
  check(max(x, min(y, x)), x);
  check(min(max(x, 0), 10), max(min(x, 10), Expr(0)));
  check(min(x * 4, y * 4), min(x, y) * 4);
  check(min(x * -2, y * -2), max(x, y) * -2);
  check(max(fd(x, 4), fd(y, 4)), fd(max(x, y), 4));
  check(min(x + y, x + z), x + min(y, z));
  check(max(x - y, x - z), x - min(y, z));
  check(min(fx, fx), fx);
  keep(min(fx, f32(2.0f)));
  keep(min(f32(2.0f), fx));  // not commuted: NaN
}

TEST_F(Rules, Compare) {
  check(i < 16, t());
  keep(i < 15);
  check(i >= 0, t());
  check(i > 15, f());
  check(x + 1 < x + y, y > 1);
  check(x <= 4, x < 5);
  check(Expr(3) < x, x > 3);
  check(x * 4 < 10, x < 3);
  check(eq(x * 2, 5), f());
  check(eq(x * 2, 6), eq(x, 3));
  check(x - y < 0, x < y);
  check(x + 3 < y, x < y + (-3));
  check(fd(x, 4) < 3, x < 12);
  check(fd(x, 4) > 2, x > 11);
  check(eq(x, x), t());
  check(ne(x, x + 1), t());
  check(x > y, y < x);
  check(x >= y, y <= x);
  check(x * 2 + 4 <= y * 2, x < y + (-1));
  check(eq(Expr(0), x), eq(x, 0));
  check(fm(x, 8) < 8, t());
  check(eq(b, int_imm(DataType::Bool(), 1)), Expr(b));
  keep(fx < f32(1.0f));
}

TEST_F(Rules, Logic) {
  check(b && t(), Expr(b));
  check(b || f(), Expr(b));
  check(b && f(), f());
  check(b || !b, t());
  check(b && b, Expr(b));
  check(b && (b || c), Expr(b));
  check(x < 4 && x < 8, x < 4);
  check(x > 4 || x > 8, x > 4);
  check(x < 3 && x > 5, f());
  check(x < 3 || x > 2, t());
  check(!(x < y), y <= x);
  check(!eq(x, y), ne(x, y));
  check(!!b, Expr(b));
  check(i < 16 && x < 3, x < 3);
  check(eq(x, 1) && eq(x, 2), f());
  keep(!(fx < f32(1.0f)));  // NaN: !(a < b) is not b <= a
}

TEST_F(Rules, Select) {
  check(select(c, x, x), x);
  check(select(x < y, x, y), min(x, y));
  check(select(x < y, y, x), max(x, y));
  check(select(!c, x, y), select(c, y, x));
  check(select(i < 16, x, y), x);
  check(select(c, x + 1, x + y), x + select(c, Expr(1), y));
  check(select(x < 5, x, Expr(4)), min(x, 4));
  check(select(c, t(), f()), Expr(c));
  check(select(c, select(c, x, y), z), select(c, x, z));
}

TEST_F(Rules, VectorsCastsAndLets) {
  check(broadcast(x, 4) + broadcast(y, 4), broadcast(x + y, 4));
  check(ramp(x, Expr(1), 4) + broadcast(y, 4), ramp(x + y, Expr(1), 4));
  check(broadcast(y, 4) + ramp(x, Expr(1), 4), ramp(y + x, Expr(1), 4));
  check(ramp(x, Expr(1), 4) * broadcast(Expr(2), 4), ramp(x * 2, Expr(2), 4));
  check(ramp(x, Expr(0), 4), broadcast(x, 4));
  check(ramp(x, Expr(1), 4) - ramp(x, Expr(1), 4), broadcast(Expr(0), 4));
  check(cast(DataType::Int32(), cast(DataType::Int64(), x)), x);
  keep(cast(DataType::Int64(), x));
  Var v("v");
  check(let(v, Expr(3), v + x), x + 3);
  check(let(v, i * 2, fd(v, 64)), Expr(0));
  check(let(v, x * 2, y), y);
  keep(let(v, x * 2, v + y));
}

TEST_F(Rules, SameNodeWhenNothingChanges) {
  keep(x);
  keep(Expr(3));
  keep(x * 8 + fd(y, 8));
  keep(select(x < y, x + z, y * 2));
  keep(max(min(x, 10), Expr(0)));
  Buffer buf("A", DataType::Float32(), {Expr(16)});
  keep(buffer_load(buf, {i * 2}));
  keep(call(Intrinsic::exp, {fx + f32(1.0f)}));
}

// Twins: one subtree built twice as two objects, as inlining builds a
// producer's body once per use. Only subtrees of 16 nodes or more are
// looked up (arith::NodeHashes::kMemoSize): these have 17 to 19.
TEST_F(Rules, TwinsShareOneResult) {
  auto build = [&] { return fd(i * 4 + 3, 4) + fm(j * 8 + k, 8) * x; };
  Expr first = build(), second = build();
  ASSERT_FALSE(first.same_as(second));
  check(first, i + k * x);
  EXPECT_TRUE(ana.simplify(second).same_as(ana.simplify(first)));
}

TEST_F(Rules, AnUnchangedTwinComesBackAsItself) {
  auto build = [&] { return x * 8 + fd(y, 8) + z * y + fm(x + z, 3) * y; };
  keep(build());
  keep(build());
}

TEST_F(Rules, ATwinUnderOtherBoundsIsSimplifiedAnew) {
  auto build = [&] { return fd(x, 4) + fd(x, 8) * y + fd(x + 1, 8) * z; };
  ana.bind(x, Range(Expr(0), Expr(4)));
  check(build(), Expr(0));
  ana.bind(x, Range(Expr(0), Expr(16)));
  keep(build());
}

TEST_F(Rules, ATwinsResultNeverCarriesAnotherLetsVariable) {
  Var v("v"), w("w");
  Expr first = let(v, x * 2, v + y) + fd(i * 4 + 3, 4) * z;
  Expr second = let(w, x * 2, w + y) + fd(i * 4 + 3, 4) * z;
  ASSERT_TRUE(structural_equal(first, second));
  check(first, let(v, x * 2, v + y) + i * z);
  Expr out = ana.simplify(second);
  EXPECT_FALSE(uses_var(out, v)) << to_string(out);
  EXPECT_TRUE(structural_equal(out, let(w, x * 2, w + y) + i * z)) << to_string(out);
}

TEST_F(Rules, SingleValuedBoundsAreConstants) {
  Var v("v");
  ana.bind(v, IntBound::exactly(3));
  check(v, Expr(3));
  check(x + v * 2, x + 6);
  check(fm(i, 16) - i, Expr(0));
}

TEST_F(Rules, CanProve) {
  EXPECT_TRUE(ana.can_prove(i < 16));
  EXPECT_FALSE(ana.can_prove(i < 15));
  EXPECT_TRUE(ana.can_prove(i * 8 + j < 128));
  EXPECT_FALSE(ana.can_prove(i * 8 + j < 127));
  EXPECT_TRUE(ana.can_prove(eq(fd(i * 8 + j, 8), i)));
  EXPECT_TRUE(ana.can_prove(eq(fd(x, 8) * 8 + fm(x, 8), x)));
  EXPECT_FALSE(ana.can_prove(x < 5));
  EXPECT_TRUE(ana.can_prove(x < x + 1));
}

TEST_F(Rules, ConvenienceSimplifyKnowsNothing) {
  EXPECT_TRUE(structural_equal(simplify((x + 2) * 3 - 6), x * 3));
  Expr e = fd(x, 16);
  EXPECT_TRUE(simplify(e).same_as(e));
}

}  // namespace
}  // namespace kiln
