// The rewriter's structural hashes (core/arith/node_hashes.h): twins hash
// alike, variables are themselves, binders are nobody's twin, and a DAG is
// hashed in time linear in its nodes however large its tree.
#include "core/arith/node_hashes.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln {
namespace {

using arith::NodeHashes;

// Nodes built without the constructors' constant folding.
Expr raw(ExprKind k, Expr a, Expr b) { return make_binary(k, std::move(a), std::move(b)); }

TEST(NodeHashes, TwinsHashAlikeAndOtherVariablesDoNot) {
  Var x("x"), y("y"), x2("x");
  auto build = [](const Var& a, const Var& b) { return floordiv(a * 4 + 3, Expr(4)) + floormod(b * 8 + a, Expr(8)) * b; };
  NodeHashes hashes;
  const NodeHashes::Hash first = hashes(build(x, y));
  EXPECT_EQ(first.value, hashes(build(x, y)).value);
  EXPECT_NE(first.value, hashes(build(x2, y)).value);  // another variable of the same name
  EXPECT_NE(first.value, hashes(build(y, x)).value);
}

TEST(NodeHashes, ALetIsNobodysTwin) {
  Var x("x"), v("v");
  Expr body = v * 2 + x;
  NodeHashes hashes;
  EXPECT_NE(hashes(let(v, x + 1, body)).value, hashes(let(v, x + 1, body)).value);
}

TEST(NodeHashes, SmallSubtreesCountTheirNodes) {
  Var x("x"), y("y");
  NodeHashes hashes;
  EXPECT_EQ(hashes(x).nodes, 1);
  EXPECT_EQ(hashes(x * 4 + y).nodes, 5);
}

TEST(NodeHashes, ADagWhoseTreeIsHugeIsCountedUpToTheMemoSize) {
  // e_{n+1} = e_n + e_n, 80 times: 2^81 nodes as a tree, 161 objects.
  Var x("x");
  auto build = [&] {
    Expr e = x;
    for (int i = 0; i < 80; ++i) e = raw(ExprKind::Add, e, e);
    return e;
  };
  NodeHashes hashes;
  const NodeHashes::Hash first = hashes(build());
  EXPECT_EQ(first.nodes, NodeHashes::kMemoSize);
  EXPECT_EQ(first.value, hashes(build()).value);
}

}  // namespace
}  // namespace kiln
