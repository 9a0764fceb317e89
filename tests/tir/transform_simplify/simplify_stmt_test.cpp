// The statement-level simplifier: before/after IR built in C++ and compared
// structurally.
#include <gtest/gtest.h>

#include "core/structural.h"
#include "tir/printer.h"
#include "tir/transform/simplify.h"

namespace kiln {
namespace {

class SimplifyStmt : public ::testing::Test {
 protected:
  void check(const Stmt& in, const Stmt& expected) {
    Stmt out = simplify_stmt(in);
    EXPECT_TRUE(structural_equal(out, expected)) << "input:\n"
                                                 << to_string(in) << "\ngot:\n"
                                                 << to_string(out) << "\nwant:\n"
                                                 << to_string(expected);
  }
  void keep(const Stmt& in) {
    Stmt out = simplify_stmt(in);
    EXPECT_TRUE(out.same_as(in)) << "input:\n" << to_string(in) << "\ngot:\n" << to_string(out);
  }
  static Stmt loop(const Var& v, int64_t min, int64_t extent, Stmt body, ForKind kind = ForKind::kSerial,
                   std::string tag = "") {
    return for_loop(v, Expr(static_cast<int>(min)), Expr(static_cast<int>(extent)), kind, std::move(body),
                    std::move(tag));
  }
  Stmt store(Expr index, Expr value) { return buffer_store(A, std::move(value), {std::move(index)}); }
  static Expr one() { return Expr(1.0f); }

  Buffer A{"A", DataType::Float32(), {Expr(1024)}};
  Buffer B{"B", DataType::Float32(), {Expr(1024)}};
  Var i{"i"}, j{"j"}, n{"n"};
};

TEST_F(SimplifyStmt, IndicesUseLoopBounds) {
  Expr flat = i * 8 + j;
  Stmt in = loop(i, 0, 4, loop(j, 0, 8, store(floordiv(flat, 8) * 8 + floormod(flat, 8), one())));
  check(in, loop(i, 0, 4, loop(j, 0, 8, store(i * 8 + j, one()))));
}

TEST_F(SimplifyStmt, BoundsEndWithTheirLoop) {
  // Inside the loop j < 8 holds; after it, j is unknown again.
  Stmt inner = loop(j, 0, 8, store(j + floordiv(j, 8), one()));
  Stmt after = store(j + floordiv(j, 8), one());
  check(seq({inner, after}), seq({loop(j, 0, 8, store(j, one())), after}));
}

TEST_F(SimplifyStmt, ProvableConditionsDisappear) {
  Stmt then_case = store(i, one());
  Stmt else_case = store(i + 1, one());
  check(loop(i, 0, 16, if_then_else(i < 16, then_case)), loop(i, 0, 16, then_case));
  check(loop(i, 0, 16, if_then_else(i >= 16, then_case, else_case)), loop(i, 0, 16, else_case));
  check(loop(i, 0, 16, if_then_else(i > 20, then_case)), no_op());
  // Not provable: kept, its condition simplified.
  check(loop(i, 0, 16, if_then_else(i + 1 <= 8, then_case)), loop(i, 0, 16, if_then_else(i < 8, then_case)));
}

TEST_F(SimplifyStmt, BranchesKnowTheirCondition) {
  Stmt in = loop(i, 0, 16,
                 if_then_else(i < 8, store(floordiv(i, 8), one()), store(floordiv(i, 8), Expr(2.0f))));
  check(in, loop(i, 0, 16, if_then_else(i < 8, store(Expr(0), one()), store(Expr(1), Expr(2.0f)))));
  check(loop(i, 0, 16, if_then_else(eq(i, 3), store(i * 2, one()))), loop(i, 0, 16, if_then_else(eq(i, 3), store(Expr(6), one()))));
  // A conjunction narrows in the then branch only.
  Stmt both = if_then_else(i > 3 && i < 8, store(floordiv(i, 4), one()), store(floordiv(i, 4), one()));
  check(loop(i, 0, 16, both),
        loop(i, 0, 16, if_then_else(i > 3 && i < 8, store(Expr(1), one()), store(floordiv(i, 4), one()))));
  // What a branch learns ends with it.
  Stmt after = store(floordiv(i, 8), one());
  check(loop(i, 0, 16, seq({if_then_else(i < 8, store(i, one())), after})),
        loop(i, 0, 16, seq({if_then_else(i < 8, store(i, one())), after})));
}

TEST_F(SimplifyStmt, ExtentOneLoopsBecomeTheirBody) {
  check(loop(i, 0, 1, loop(j, 0, 8, store(i * 8 + j, one()))), loop(j, 0, 8, store(j, one())));
  check(loop(i, 3, 1, store(i * 2, one())), store(Expr(6), one()));
  // A thread-bound loop shapes the launch: kept.
  // (its variable is still known to be 0).
  check(loop(i, 0, 1, store(i, one()), ForKind::kThreadBinding, "threadIdx.x"),
        loop(i, 0, 1, store(Expr(0), one()), ForKind::kThreadBinding, "threadIdx.x"));
}

TEST_F(SimplifyStmt, EmptyLoopsDisappear) {
  Stmt kept = loop(j, 0, 4, store(j, one()));
  check(seq({loop(i, 0, 0, store(i, one())), kept}), kept);
  check(for_loop(i, Expr(0), n - n, ForKind::kSerial, store(i, one())), no_op());
}

TEST_F(SimplifyStmt, StoringAnElementsOwnValueIsNothing) {
  // C[i] = C[i] + D[i] * 0, the border of a padded input after unswitching
  // (integers: a float's x * 0 is not 0 for x = inf or NaN): the loop goes
  // with the store. Another element's value stays.
  Buffer C{"C", DataType::Int(32), {Expr(16)}}, D{"D", DataType::Int(32), {Expr(16)}};
  check(loop(i, 0, 16, buffer_store(C, buffer_load(C, {i}) + buffer_load(D, {i}) * Expr(0), {i})), no_op());
  keep(loop(i, 0, 16, store(i, buffer_load(A, {i + 1}))));
  keep(loop(i, 0, 16, store(i, buffer_load(B, {i}))));
}

TEST_F(SimplifyStmt, BlockIterVarsUseTheirDomains) {
  Var vi("vi");
  Stmt body = buffer_store(B, buffer_load(A, {floormod(vi, 16) + floordiv(vi, 16)}), {vi});
  auto make = [&](Stmt b) {
    BlockFields f;
    f.name = "B";
    f.iter_vars = {IterVar(vi, Range(Expr(0), Expr(16)), IterType::kSpatial)};
    f.reads = {BufferRegion(A, {Range(Expr(0), Expr(16))})};
    f.writes = {BufferRegion(B, {Range(Expr(0), Expr(16))})};
    f.body = std::move(b);
    return loop(i, 0, 16, block_realize({i}, int_imm(DataType::Bool(), 1), block(std::move(f))));
  };
  check(make(body), make(buffer_store(B, buffer_load(A, {vi}), {vi})));
}

TEST_F(SimplifyStmt, LetValuesAreBounded) {
  Var v("v");
  check(loop(i, 0, 16, let_stmt(v, i * 2, store(floordiv(v, 32), one()))),
        loop(i, 0, 16, let_stmt(v, i * 2, store(Expr(0), one()))));
}

TEST_F(SimplifyStmt, SameNodeWhenNothingChanges) {
  Stmt s = loop(i, 0, 4, loop(j, 0, 8, store(i * 8 + j, buffer_load(B, {j}) + one())));
  keep(s);
  keep(loop(i, 0, 16, if_then_else(i < 8, store(i, one()), store(i, Expr(2.0f)))));
  PrimFunc f("f", {A, B}, s);
  EXPECT_TRUE(simplify(f).same_as(f));
}

TEST_F(SimplifyStmt, PrimFuncBodyIsSimplified) {
  PrimFunc f("f", {A, B}, loop(i, 0, 16, store(floormod(i, 16), one())));
  PrimFunc g = simplify(f);
  EXPECT_FALSE(g.same_as(f));
  EXPECT_TRUE(structural_equal(g->body, loop(i, 0, 16, store(i, one()))));
  EXPECT_EQ(g.name(), "f");
}

}  // namespace
}  // namespace kiln
