// One test per kind of malformed text: each names the line and column and
// says what was expected or what is wrong.
#include "round_trip.h"

namespace kiln {
namespace {

using testing::func_error;

bool contains(const std::string& message, const std::string& part) { return message.find(part) != std::string::npos; }

std::string expr_error(const std::string& text) {
  Var x("x"), y("y"), z("z");
  return testing::parse_error([&](const std::string& t) { parse_expr(t, {.vars = {x, y, z}}); }, text);
}

TEST(ParseError, UnexpectedToken) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4 x), "float32")):
    A[0] = T.float32(0)
)"),
            "line 2, column 22: expected ')' after buffer shape, got 'x'");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0) A
)"),
            "line 3, column 25: expected end of line after the stored value, got 'A'");
  EXPECT_EQ(expr_error("T.pow(T.float32(1))"), "line 1, column 19: expected ',' between the arguments of T.pow, got ')'");
  EXPECT_EQ(expr_error("x +"), "line 1, column 4: expected an expression, got end of line");
}

TEST(ParseError, APrefetchOfSomethingElse) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.prefetch(T.float32(1))
)"),
            "line 3, column 16: T.prefetch takes one element of a buffer, B[index]");
}

TEST(ParseError, UndefinedName) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi, vk])
            A[vi, 0] = T.float32(0)
)"),
            "line 7, column 28: undefined name 'vk'");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
    A[i] = T.float32(1)
)"),
            "line 5, column 7: 'i' is used outside the scope that binds it");
}

TEST(ParseError, BadIndentation) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
      A[0] = T.float32(1)
)"),
            "line 5, column 7: unindent does not match any outer indentation level");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
        A[1] = T.float32(1)
)"),
            "line 4, column 9: unexpected indentation");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
    A[i] = T.float32(0)
)"),
            "line 4, column 5: expected an indented block after ':', got 'A'");
}

TEST(ParseError, WrongNumberOfAxes) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8, 2):
        A[i, j] = T.float32(0)
)"),
            "line 3, column 17: T.grid has 3 extents for 2 loop variables");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(0)
)"),
            "line 5, column 34: expected ',' and the bound value of axis 'vi', got ')'");
}

TEST(ParseError, UnknownDataType) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float33")):
    A[0] = T.float32(0)
)"),
            "line 2, column 25: unknown data type 'float33'");
  EXPECT_EQ(expr_error("T.Cast(\"int3\", x)"), "line 1, column 8: unknown data type 'int3'");
}

TEST(ParseError, UnknownFunction) {
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.foo(A[1])
)"),
            "line 3, column 14: unknown function 'T.foo'");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.frobnicate()
)"),
            "line 3, column 7: unknown function 'T.frobnicate'");
  EXPECT_PRED2(contains, func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in T.forever(4):
        A[i] = T.float32(0)
)"), "line 3, column 16: unknown loop kind 'T.forever'");
}

TEST(ParseError, MisplacedHeaderLines) {
  EXPECT_PRED2(contains, func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.reads(A[0])
)"), "line 3, column 7: 'T.reads' is only allowed at the top of a block");
}

TEST(ParseError, TypesAndConstants) {
  EXPECT_EQ(expr_error("x < y < z"), "line 1, column 7: comparisons do not chain; parenthesize one side");
  EXPECT_EQ(expr_error("x + T.int64(1)"), "line 1, column 3: operands of '+' have different types int32 and int64");
  EXPECT_EQ(expr_error("T.int8(300)"), "line 1, column 8: integer 300 does not fit int8");
  EXPECT_EQ(expr_error("3000000000"), "line 1, column 1: integer 3000000000 does not fit int32");
  EXPECT_PRED2(contains, expr_error("x / 2"), "line 1, column 3: '/' divides floats");
  EXPECT_EQ(expr_error("T.exp(1.5)"), "line 1, column 7: a float needs its type, as in T.float32(1.5)");
  EXPECT_EQ(expr_error("T.Select(x, 1, 2)"), "line 1, column 10: the condition of T.Select must be bool, not int32");
  EXPECT_PRED2(contains, expr_error("T.int32x4(1)"), "line 1, column 3: immediates are scalars");
  // The parser asks the typing rules the checker applies (core/expr_type.h):
  // before, it read a ramp of floats that every later reader refused.
  EXPECT_EQ(expr_error("T.Ramp(T.float32(0), T.float32(1), 4)"),
            "line 1, column 8: T.Ramp: a ramp needs a scalar integer base and stride of one type, not float32 and "
            "float32");
  EXPECT_EQ(expr_error("T.max(x < y, x < y)"), "line 1, column 7: operands of T.max must be numbers, not bool");
  EXPECT_EQ(func_error(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float64(1)
)"),
            "line 3, column 12: cannot store float64 into 'A' of float32");
}

TEST(ParseError, Lexical) {
  EXPECT_EQ(expr_error("\"abc"), "line 1, column 1: unterminated string");
  EXPECT_EQ(expr_error("x $ y"), "line 1, column 3: unexpected character '$'");
}

}  // namespace
}  // namespace kiln
