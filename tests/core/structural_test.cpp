// Structural equality: what a program binds maps one-to-one, what it uses
// without binding (a free variable) is only ever itself.
#include <gtest/gtest.h>

#include <limits>

#include "core/expr.h"
#include "core/structural.h"

namespace kiln {
namespace {

TEST(Structural, AFreeVariableEqualsOnlyItself) {
  Var x("x"), y("y"), a("a"), b("b");
  EXPECT_TRUE(structural_equal(x + y, x + y));
  EXPECT_FALSE(structural_equal(x + y, a + b));
  EXPECT_FALSE(structural_equal(x + y, y + x));
  EXPECT_FALSE(structural_equal(x + x, x + y));
}

TEST(Structural, FreeVariablesMapWhenTheCallerSaysSo) {
  // Fragments built apart (one parsed back from the other's text) have
  // variables of their own: kMap pairs them, and still refuses aliasing.
  Var x("x"), y("y"), a("a"), b("b");
  EXPECT_TRUE(structural_equal(x + y, a + b, FreeVars::kMap));
  EXPECT_FALSE(structural_equal(x + x, a + b, FreeVars::kMap));
  EXPECT_FALSE(structural_equal(x + y, a * b, FreeVars::kMap));
  EXPECT_FALSE(structural_equal(x + y, a + Var("c", DataType::Int64()), FreeVars::kMap));
}

TEST(Structural, AStoreTransposedIsAnotherStore) {
  // C[vi, vj] and C[vj, vi] in one block: vi and vj are the same objects on
  // both sides, so the two accesses differ. (Pairing unseen variables in
  // order of appearance made them equal, and a block storing
  // C[vi, vj] = C[vj, vi] + ... read as a reduction into C[vi, vj].)
  Buffer c("C", DataType::Float32(), {Expr(4), Expr(4)});
  Var vi("vi"), vj("vj");
  EXPECT_TRUE(structural_equal(buffer_load(c, {vi, vj}), buffer_load(c, {vi, vj})));
  EXPECT_FALSE(structural_equal(buffer_load(c, {vj, vi}), buffer_load(c, {vi, vj})));
  Buffer d("C", DataType::Float32(), {Expr(4), Expr(4)});
  EXPECT_FALSE(structural_equal(buffer_load(c, {vi, vj}), buffer_load(d, {vi, vj})))
      << "a free buffer is itself too, whatever its name and shape";
}

TEST(Structural, ALetBindsItsVariable) {
  Var x("x"), y("y"), z("z");
  EXPECT_TRUE(structural_equal(let(x, Expr(1), x + z), let(y, Expr(1), y + z)));
  EXPECT_EQ(structural_hash(let(x, Expr(1), x + z)), structural_hash(let(y, Expr(1), y + z)));
  EXPECT_FALSE(structural_equal(let(x, Expr(1), x + z), let(y, Expr(1), y + x)))
      << "x is bound on the left, free on the right";
  EXPECT_FALSE(structural_equal(let(x, Expr(1), x + z), let(y, Expr(1), z + y)));
  Var l("l", DataType::Int64());
  EXPECT_FALSE(structural_equal(let(x, Expr(1), z), let(l, int_imm(DataType::Int64(), 1), z)))
      << "bound variables of different types";
}

TEST(Structural, AReduceBindsItsAxisThoughItIsDeclaredAfterTheSource) {
  Buffer a("A", DataType::Float32(), {Expr(8)});
  Var k("k"), r("r");
  auto sum_over = [&](const Var& v) {
    return reduce(ReduceKind::kSum, buffer_load(a, {v}), {IterVar(v, Range::from_extent(Expr(8)), IterType::kReduce)});
  };
  EXPECT_TRUE(structural_equal(sum_over(k), sum_over(r)));
  EXPECT_EQ(structural_hash(sum_over(k)), structural_hash(sum_over(r)));
  Expr over_r_reading_k =
      reduce(ReduceKind::kSum, buffer_load(a, {k}), {IterVar(r, Range::from_extent(Expr(8)), IterType::kReduce)});
  EXPECT_FALSE(structural_equal(sum_over(k), over_r_reading_k));
}

TEST(Structural, FloatsCompareBitForBit) {
  DataType f32 = DataType::Float32();
  EXPECT_TRUE(structural_equal(float_imm(f32, 1.5), float_imm(f32, 1.5)));
  EXPECT_FALSE(structural_equal(float_imm(f32, 0.0), float_imm(f32, -0.0)));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(structural_equal(float_imm(f32, nan), float_imm(f32, nan)));
  EXPECT_FALSE(structural_equal(float_imm(f32, 1.0), float_imm(DataType::Float(64), 1.0)));
}

TEST(Structural, ASharedSubtreeIsEqualUnlessItsVariablesArePaired) {
  Var x("x"), y("y"), z("z");
  Expr shared = x * 3;
  EXPECT_TRUE(structural_equal(shared + z, shared + z));
  // Under let x / let y, the shared `x * 3` reads x on both sides, but x is
  // paired with y: the right side reads a free x where the left reads its
  // bound one.
  EXPECT_FALSE(structural_equal(let(x, Expr(1), shared), let(y, Expr(1), shared)));
}

}  // namespace
}  // namespace kiln
