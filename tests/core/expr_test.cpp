#include <gtest/gtest.h>

#include "core/expr.h"
#include "core/functor.h"
#include "core/structural.h"

namespace kiln {
namespace {

TEST(Expr, ConstantsFoldInConstructors) {
  Expr e = Expr(2) + Expr(3);
  ASSERT_NE(as_const_int(e), nullptr);
  EXPECT_EQ(*as_const_int(e), 5);
}

TEST(Expr, BinaryOfVarsKeepsStructure) {
  Var x("x"), y("y");
  Expr e = x + y * 2;
  const auto* add = e.as<AddNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->a.same_as(x));
  EXPECT_NE(add->b.as<MulNode>(), nullptr);
  EXPECT_EQ(e.dtype(), DataType::Int32());
}

TEST(Functor, MutatorReturnsSameNodeWhenNothingChanges) {
  Var x("x"), y("y");
  Expr e = max(x + y, y * 3);
  Expr same = substitute(e, std::vector<std::pair<Var, Expr>>{});
  EXPECT_TRUE(same.same_as(e));
  Expr sub = substitute(e, std::vector<std::pair<Var, Expr>>{{x, Expr(1)}});
  EXPECT_FALSE(sub.same_as(e));
  EXPECT_TRUE(structural_equal(sub, max(Expr(1) + y, y * 3)));
}

}  // namespace
}  // namespace kiln
