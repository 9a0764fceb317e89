// Every error the interpreter reports, each naming what is wrong.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include "test_programs.h"

namespace kiln {
namespace {

using test::host;
using test::kF32;
using test::kI32;
using test::loop;

// Runs fn and returns the kiln::Error message it throws ("" if none).
using testing::error_of;

class InterpErrors : public ::testing::Test {
 protected:
  std::vector<float> a = std::vector<float>(12), b = std::vector<float>(12), c = std::vector<float>(9);
  PrimFunc mm = test::matmul_block(3, 3, 4);  // A 3x4, B 4x3, C 3x3
};

TEST_F(InterpErrors, ArgumentCount) {
  EXPECT_EQ(error_of([&] { interpret(mm, {host(a, kF32, {3, 4}), host(b, kF32, {4, 3})}); }),
            "matmul takes 3 arguments, got 2");
}

TEST_F(InterpErrors, ArgumentShape) {
  EXPECT_EQ(error_of([&] { interpret(mm, {host(a, kF32, {4, 3}), host(b, kF32, {4, 3}), host(c, kF32, {3, 3})}); }),
            "argument 0 (A) of matmul has extent 4 in dimension 0, expected 3");
  EXPECT_EQ(error_of([&] { interpret(mm, {host(a, kF32, {12}), host(b, kF32, {4, 3}), host(c, kF32, {3, 3})}); }),
            "argument 0 (A) of matmul has 1 dimensions, expected 2");
}

TEST_F(InterpErrors, ArgumentDtype) {
  EXPECT_EQ(error_of([&] {
              interpret(mm, {host(a, kF32, {3, 4}), host(b, DataType::Float(16), {4, 3}), host(c, kF32, {3, 3})});
            }),
            "argument 1 (B) of matmul has type float16, expected float32");
}

TEST_F(InterpErrors, OutOfBoundsNamesBufferAndIndex) {
  Buffer A("A", kF32, {Expr(4), Expr(3)});
  Var i("i"), j("j");
  // j + 1 reaches column 3 of a 3-column buffer (still inside the flat array).
  PrimFunc f("shift", {A}, loop(i, 4, loop(j, 3, buffer_store(A, Expr(1.0f), {i, j + 1}))));
  EXPECT_EQ(error_of([&] { interpret(f, {host(a, kF32, {4, 3})}); }),
            "out-of-bounds access to A at index [0, 3]: its shape is [4, 3]");
  Buffer F("F", kF32, {Expr(12)});
  PrimFunc g("vec", {F}, buffer_store(F, broadcast(Expr(0.0f), 4), {ramp(Expr(10), Expr(1), 4)}));
  EXPECT_EQ(error_of([&] { interpret(g, {host(a, kF32, {12})}); }),
            "out-of-bounds access to F at index [12] (lane 2 of 4): its shape is [12]");
}

TEST_F(InterpErrors, DivisionByZero) {
  Buffer X("X", kI32, {Expr(2)});
  Var i("i");
  PrimFunc f("div", {X}, loop(i, 2, buffer_store(X, Expr(10) / buffer_load(X, {i}), {i})));
  std::vector<int32_t> x = {5, 0};
  EXPECT_EQ(error_of([&] { interpret(f, {host(x, kI32, {2})}); }), "integer division by zero in Div");
  EXPECT_EQ(x[0], 2);
}

TEST_F(InterpErrors, ProgramsThatCannotRun) {
  Buffer X("X", kF32, {Expr(2)});
  Var i("i"), k("k"), stray("stray");
  PrimFunc undefined("undefined", {X}, loop(i, 2, buffer_store(X, Expr(1.0f), {stray})));
  EXPECT_EQ(error_of([&] { Interpreter{undefined}; }), "variable stray is used outside the scope that defines it");
  Expr sum = reduce(ReduceKind::kSum, buffer_load(X, {k}), {test::reduce_axis(k, 2)});
  PrimFunc with_reduce("reduce", {X}, buffer_store(X, sum, {Expr(0)}));
  EXPECT_NE(error_of([&] { Interpreter{with_reduce}; }).find("Reduce cannot be interpreted"), std::string::npos);
  Buffer Y("Y", kF32, {Expr(2)});
  PrimFunc unknown("unknown", {X}, buffer_store(Y, Expr(1.0f), {Expr(0)}));
  EXPECT_EQ(error_of([&] { Interpreter{unknown}; }),
            "buffer Y is neither a parameter nor allocated where it is used");
}

}  // namespace
}  // namespace kiln
