// What a function costs, read off its loops: FLOPs (GFLOP/s figures) and
// steps (the bound on constant folding's interpreter runs).
#include <gtest/gtest.h>

#include "ops/workload.h"
#include "tir/analysis/flops.h"
#include "tir/te/create_prim_func.h"

namespace kiln {
namespace {

PrimFunc workload(const std::string& w) { return ops::build_workload(ops::parse_workload(w)); }

TEST(Flops, MatmulIsTwiceItsMultiplyAdds) {
  EXPECT_EQ(estimate_flops(workload("matmul:M=4,N=5,K=6")), 2.0 * 4 * 5 * 6);
}

// An int8 product counts its widened multiply-adds as a float one does;
// the index arithmetic around them, and the padding's select, not at all.
TEST(Flops, IntegerOperationsOnDataCountIndexArithmeticDoesNot) {
  EXPECT_EQ(estimate_flops(workload("matmul_u8s8s32:M=4,N=5,K=6")), 2.0 * 4 * 5 * 6);
  EXPECT_EQ(estimate_flops(workload("add:M=3,N=5,dtype=int32")), 3.0 * 5);
  EXPECT_EQ(estimate_flops(workload("conv2d_nchwc_u8s8s32:N=1,C=8,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1,cb=8,kb=8")),
            2.0 * 8 * 6 * 6 * 8 * 3 * 3);
  const te::Tensor A = te::placeholder({Expr(4), Expr(5)}, DataType::Int(32), "A");
  const te::Tensor T = te::compute({Expr(4), Expr(5)}, [&](Var i, Var j) { return A(i, j * 2 % 5) + 0 * i; }, "T");
  EXPECT_EQ(estimate_flops(te::create_prim_func({A, T}, "strided")), 4.0 * 5);
}

TEST(Flops, ACopyHasNone) {
  const te::Tensor A = te::placeholder({Expr(4), Expr(5)}, DataType::Float32(), "A");
  const te::Tensor T = te::compute({Expr(5), Expr(4)}, [&](Var i, Var j) { return A(j, i); }, "T");
  EXPECT_EQ(estimate_flops(te::create_prim_func({A, T}, "transpose")), 0.0);
}

TEST(Steps, EveryLoopIterationAndStatementInitsIncluded) {
  // Loops i (4), j (4·5), k (4·5·6); the update and the init under all three.
  EXPECT_EQ(estimate_steps(workload("matmul:M=4,N=5,K=6")), 4 + 4 * 5 + 3 * (4 * 5 * 6));
}

TEST(Steps, ALoopNestOverNothingStillCosts) {
  // [2^20, 0]: no statement runs, yet the outer loop takes 2^20 steps.
  const te::Tensor A = te::placeholder({Expr(1 << 20), Expr(0)}, DataType::Float32(), "A");
  const te::Tensor B = te::compute({Expr(1 << 20), Expr(0)}, [&](Var i, Var j) { return A(i, j) + A(i, j); }, "B");
  const PrimFunc f = te::create_prim_func({A, B}, "add");
  EXPECT_EQ(estimate_flops(f), 0.0);
  EXPECT_EQ(estimate_steps(f), double(1 << 20));
}

}  // namespace
}  // namespace kiln
