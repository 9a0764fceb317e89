// The object system's generic walks and casts, which every visitor and
// mutator falls back on.
#include <gtest/gtest.h>

#include "core/expr.h"
#include "core/functor.h"
#include "core/structural.h"
#include "tir/stmt.h"

namespace kiln {
namespace {

TEST(Object, AsTellsNodeTypesAndFamiliesApart) {
  Var x("x");
  Expr sum = x + 1;
  Stmt store = evaluate(sum);
  EXPECT_NE(sum.as<AddNode>(), nullptr);
  EXPECT_EQ(sum.as<MulNode>(), nullptr);
  EXPECT_NE(sum.as<ExprNode>(), nullptr);
  EXPECT_EQ(sum.as<StmtNode>(), nullptr);
  EXPECT_NE(store.as<StmtNode>(), nullptr);
  EXPECT_NE(store.as<EvaluateNode>(), nullptr);
  EXPECT_EQ(store.as<ExprNode>(), nullptr);
  EXPECT_EQ(store.as<ForNode>(), nullptr);
  EXPECT_EQ(Expr().as<ExprNode>(), nullptr);
}

TEST(Object, ForEachChildVisitsFieldsArraysAndMapValuesInOrder) {
  Var i("i"), n("n");
  Stmt body = evaluate(i * 2);
  Stmt loop = for_loop(i, Expr(0), n, ForKind::kSerial, body, "", {{"pragma_auto_unroll_max_step", Expr(16)}});
  std::vector<const Object*> seen;
  for_each_child(*loop.get(), [&](const ObjectRef& c) { seen.push_back(c.get()); });
  // loop_var, min, extent, body, then the annotation's value.
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], i.get());
  EXPECT_EQ(seen[2], n.get());
  EXPECT_EQ(seen[3], body.get());
  EXPECT_EQ(seen[4], loop.as<ForNode>()->annotations.begin()->second.get());
}

TEST(Object, RewriteChildrenCopiesOnlyWhatChanged) {
  Var x("x"), y("y");
  Expr e = x + y;
  // Before: fn returns every child itself, and the node itself comes back.
  ObjectRef same = rewrite_children(e, [](const ObjectRef& c) { return c; });
  EXPECT_TRUE(same.same_as(e));
  // After: one child replaced; the other is shared, not copied.
  ObjectRef changed = rewrite_children(e, [&](const ObjectRef& c) { return c.same_as(x) ? ObjectRef(Expr(3).ptr()) : c; });
  ASSERT_FALSE(changed.same_as(e));
  const auto* add = changed.as<AddNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(*as_const_int(add->a), 3);
  EXPECT_TRUE(add->b.same_as(y));
  EXPECT_TRUE(e.as<AddNode>()->a.same_as(x));  // the original is untouched
}

TEST(Object, RewriteChildrenRefusesAChildOfTheWrongType) {
  Var i("i");
  Stmt loop = for_loop(i, Expr(0), Expr(4), ForKind::kSerial, evaluate(i));
  // A statement where the loop's extent (an Expr) goes.
  auto swap_extent = [&](const ObjectRef& c) -> ObjectRef {
    return c.as<IntImmNode>() && *as_const_int(Expr(c.ptr())) == 4 ? ObjectRef(no_op().ptr()) : c;
  };
  EXPECT_THROW(rewrite_children(loop, swap_extent), Error);
}

TEST(Object, RewriteChildrenValidatesTheNewNode) {
  Var x("x");
  Expr e = x + 1;
  // A float operand makes an int32 Add ill-typed: the copy is validated like
  // any node built from fields.
  auto to_float = [](const ObjectRef& c) -> ObjectRef {
    return c.as<IntImmNode>() ? ObjectRef(Expr(1.5f).ptr()) : c;
  };
  EXPECT_THROW(rewrite_children(e, to_float), Error);
}

}  // namespace
}  // namespace kiln
