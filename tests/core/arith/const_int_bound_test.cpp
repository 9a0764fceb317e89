#include <gtest/gtest.h>

#include "core/arith/analyzer.h"
#include "core/arith/const_int_bound.h"

namespace kiln {
namespace {

using arith::IntBound;

class Bounds : public ::testing::Test {
 protected:
  Bounds() {
    ana.bind(x, IntBound{0, 15});
    ana.bind(y, IntBound{-4, 3});
    ana.bind(n, IntBound{1, 8});
  }
  IntBound of(const Expr& e) { return ana.const_int_bound(e); }

  arith::Analyzer ana;
  Var x{"x"}, y{"y"}, n{"n"}, free{"free"};
};

TEST_F(Bounds, Leaves) {
  EXPECT_EQ(of(Expr(7)), IntBound::exactly(7));
  EXPECT_EQ(of(x), (IntBound{0, 15}));
  EXPECT_EQ(of(free), (IntBound{-(int64_t{1} << 31), (int64_t{1} << 31) - 1}));
  EXPECT_EQ(of(Var("w", DataType::Int64())), IntBound::everything());
  EXPECT_EQ(of(Var("u", DataType::UInt(8))), (IntBound{0, 255}));
  EXPECT_EQ(of(Var("f", DataType::Float32())), IntBound::everything());
}

TEST_F(Bounds, Arithmetic) {
  EXPECT_EQ(of(x + y), (IntBound{-4, 18}));
  EXPECT_EQ(of(x - y), (IntBound{-3, 19}));
  EXPECT_EQ(of(x * y), (IntBound{-60, 45}));
  EXPECT_EQ(of(y * y), (IntBound{-12, 16}));  // not tight: y is independent of itself here
  EXPECT_EQ(of(x * 4 + 3), (IntBound{3, 63}));
  EXPECT_EQ(of(min(x, y)), (IntBound{-4, 3}));
  EXPECT_EQ(of(max(x, y)), (IntBound{0, 15}));
}

TEST_F(Bounds, Division) {
  EXPECT_EQ(of(floordiv(x, 4)), (IntBound{0, 3}));
  EXPECT_EQ(of(floordiv(y, 4)), (IntBound{-1, 0}));
  EXPECT_EQ(of(y / 4), (IntBound{-1, 0}));
  EXPECT_EQ(of(floormod(y, 4)), (IntBound{0, 3}));
  EXPECT_EQ(of(y % 4), (IntBound{-3, 3}));
  EXPECT_EQ(of(floormod(x, 16)), (IntBound{0, 15}));
  EXPECT_EQ(of(floormod(x + 16, 32)), (IntBound{16, 31}));  // one period: exact
  EXPECT_EQ(of(floormod(x, 4)), (IntBound{0, 3}));
  EXPECT_EQ(of(floordiv(x, n)), (IntBound{0, 15}));
  EXPECT_EQ(of(floordiv(x, y)), (IntBound{-15, 15}));  // y may be -1 or 1 (0 excluded)
  EXPECT_EQ(of(floormod(x, Expr(-4))), (IntBound{-3, 0}));
  // A divisor that can only be zero: no meaning, the type's range.
  Var zero("zero");
  ana.bind(zero, IntBound::exactly(0));
  EXPECT_EQ(of(floordiv(x, zero)), IntBound::of_type(DataType::Int32()));
}

TEST_F(Bounds, ComparisonsLogicSelect) {
  EXPECT_EQ(of(x < 16), IntBound::exactly(1));
  EXPECT_EQ(of(x < 8), (IntBound{0, 1}));
  EXPECT_EQ(of(x > 15), IntBound::exactly(0));
  EXPECT_EQ(of(x < 16 && y < 4), IntBound::exactly(1));
  EXPECT_EQ(of(!(x < 16)), IntBound::exactly(0));
  EXPECT_EQ(of(select(x < 8, y, x)), (IntBound{-4, 15}));
  EXPECT_EQ(of(select(x < 16, y, x)), (IntBound{-4, 3}));
}

TEST_F(Bounds, CastsVectorsLets) {
  EXPECT_EQ(of(cast(DataType::Int64(), x)), (IntBound{0, 15}));
  EXPECT_EQ(of(cast(DataType::Int(8), x * 100)), (IntBound{-128, 127}));  // may wrap
  EXPECT_EQ(of(cast(DataType::Bool(), x + 1)), IntBound::exactly(1));
  EXPECT_EQ(of(ramp(x * 4, Expr(1), 4)), (IntBound{0, 63}));
  EXPECT_EQ(of(broadcast(y, 8)), (IntBound{-4, 3}));
  Var v("v");
  EXPECT_EQ(of(let(v, x * 2, v + 1)), (IntBound{1, 31}));
  EXPECT_FALSE(ana.binding(v).has_value());  // the let's binding is scoped
}

TEST_F(Bounds, SaturatesInsteadOfOverflowing) {
  Var a("a", DataType::Int64()), b("b", DataType::Int64());
  ana.bind(a, IntBound{0, IntBound::kPosInf});
  EXPECT_EQ(of(a * b), IntBound::everything());
  EXPECT_EQ(of(a + 1), (IntBound{1, IntBound::kPosInf}));
  EXPECT_EQ(of(a * int_imm(DataType::Int64(), int64_t{1} << 62) * int_imm(DataType::Int64(), 4)),
            (IntBound{0, IntBound::kPosInf}));
  ana.bind(a, IntBound{int64_t{1} << 62, int64_t{1} << 62});
  EXPECT_EQ(of(a * 4), (IntBound{IntBound::kPosInf, IntBound::kPosInf}));
  EXPECT_EQ(of(Expr(0) - a - a - a), (IntBound{IntBound::kNegInf, IntBound::kNegInf}));
  EXPECT_EQ(of(floordiv(a * 8, 8)), (IntBound{IntBound::kPosInf, IntBound::kPosInf}));
}

TEST_F(Bounds, UnsignedWraps) {
  Var u("u", DataType::UInt(8));
  ana.bind(u, IntBound{0, 10});
  EXPECT_EQ(of(u + int_imm(DataType::UInt(8), 1)), (IntBound{1, 11}));
  EXPECT_EQ(of(u - int_imm(DataType::UInt(8), 1)), (IntBound{0, 255}));  // 0 - 1 wraps
}

TEST_F(Bounds, RangeBindings) {
  Var i("i"), j("j"), e("e");
  ana.bind(i, Range(Expr(0), Expr(16)));
  EXPECT_EQ(of(i), (IntBound{0, 15}));
  ana.bind(j, Range(i * 4, Expr(4)));
  EXPECT_EQ(of(j), (IntBound{0, 63}));
  ana.bind(e, Range(Expr(2), n));
  EXPECT_EQ(of(e), (IntBound{2, 9}));
  ana.unbind(i);
  EXPECT_EQ(of(i), IntBound::of_type(DataType::Int32()));
}

TEST_F(Bounds, OneShotFunction) {
  Var i("i");
  EXPECT_EQ(arith::const_int_bound(i * 2, std::vector<std::pair<Var, Range>>{{i, Range(Expr(1), Expr(4))}}),
            (IntBound{2, 8}));
  EXPECT_EQ(arith::const_int_bound(Expr(3) + 4), IntBound::exactly(7));
}

TEST(IntBoundPrint, ShowsInfinities) {
  std::ostringstream os;
  os << IntBound{IntBound::kNegInf, 3} << " " << IntBound{0, 15};
  EXPECT_EQ(os.str(), "[-inf, 3] [0, 15]");
}

}  // namespace
}  // namespace kiln
