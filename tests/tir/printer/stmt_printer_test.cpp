// Golden tests of statement text (docs/ir_text.md): every statement kind,
// every loop kind, blocks with all their parts, and the tail rule for lets
// and allocations.
#include <gtest/gtest.h>

#include <sstream>

#include "tir/printer.h"

namespace kiln {
namespace {

DataType f32 = DataType::Float32();

class StmtPrinter : public ::testing::Test {
 protected:
  Buffer A{"A", f32, {64, 64}};
  Var i{"i"}, j{"j"};
  Stmt store_ij() { return buffer_store(A, buffer_load(A, {i, j}) + 1.0f, {i, j}); }
};

TEST_F(StmtPrinter, StoreAndEvaluate) {
  EXPECT_EQ(to_string(store_ij()), "A[i, j] = A[i, j] + T.float32(1)\n");
  Buffer S("S", f32, {});
  EXPECT_EQ(to_string(buffer_store(S, 0.0f, {})), "S[()] = T.float32(0)\n");
  Buffer V("V", f32, {64});
  EXPECT_EQ(to_string(buffer_store(V, broadcast(Expr(1.0f), 8), {ramp(i * 8, 1, 8)})),
            "V[T.Ramp(i * 8, 1, 8)] = T.Broadcast(T.float32(1), 8)\n");
  EXPECT_EQ(to_string(evaluate(Expr(0))), "T.evaluate(0)\n");
  EXPECT_EQ(to_string(evaluate(i + 1)), "T.evaluate(i + 1)\n");
}

TEST_F(StmtPrinter, LoopKinds) {
  Stmt s = store_ij();
  EXPECT_EQ(to_string(for_loop(j, 0, 64, ForKind::kSerial, s)), "for j in range(64):\n    A[i, j] = A[i, j] + T.float32(1)\n");
  EXPECT_EQ(to_string(for_loop(j, 0, 64, ForKind::kParallel, s)), "for j in T.parallel(64):\n    A[i, j] = A[i, j] + T.float32(1)\n");
  EXPECT_EQ(to_string(for_loop(j, 0, 8, ForKind::kVectorized, s)), "for j in T.vectorized(8):\n    A[i, j] = A[i, j] + T.float32(1)\n");
  EXPECT_EQ(to_string(for_loop(j, 0, 4, ForKind::kUnrolled, s)), "for j in T.unroll(4):\n    A[i, j] = A[i, j] + T.float32(1)\n");
  EXPECT_EQ(to_string(for_loop(j, 0, 32, ForKind::kThreadBinding, s, "threadIdx.x")),
            "for j in T.thread_binding(32, thread=\"threadIdx.x\"):\n    A[i, j] = A[i, j] + T.float32(1)\n");
  EXPECT_EQ(to_string(for_loop(j, 0, 64, ForKind::kSerial, s, "", {{"pragma_auto_unroll_max_step", Expr(16)},
                                                                     {"pragma_unroll_explicit", Expr(0)}})),
            "for j in T.serial(64, annotations={\"pragma_auto_unroll_max_step\": 16, \"pragma_unroll_explicit\": 0}):\n"
            "    A[i, j] = A[i, j] + T.float32(1)\n");
}

TEST_F(StmtPrinter, LoopRanges) {
  Stmt s = evaluate(j);
  EXPECT_EQ(to_string(for_loop(j, 2, 62, ForKind::kSerial, s)), "for j in range(2, 64):\n    T.evaluate(j)\n");
  EXPECT_EQ(to_string(for_loop(j, i * 4, 4, ForKind::kParallel, s)), "for j in T.parallel(i * 4, i * 4 + 4):\n    T.evaluate(j)\n");
  Var n("n", DataType::Int64());
  EXPECT_EQ(to_string(for_loop(n, Expr(int64_t{0}), Expr(int64_t{16}), ForKind::kSerial, evaluate(n))),
            "for n in range(T.int64(16)):\n    T.evaluate(n)\n");
  // A loop variable whose type differs from its extent's says so.
  auto odd = std::make_shared<ForNode>(*for_loop(n, Expr(int64_t{0}), Expr(int64_t{16}), ForKind::kSerial, evaluate(n)).as<ForNode>());
  odd->min = Expr(0);
  odd->extent = Expr(16);
  EXPECT_EQ(to_string(Stmt(ObjectPtr(odd))), "for n in T.serial(16, dtype=\"int64\"):\n    T.evaluate(n)\n");
}

TEST_F(StmtPrinter, GridGroupsPlainNestsOnly) {
  Var k("k");
  Stmt s = evaluate(i + j + k);
  EXPECT_EQ(to_string(for_loop(i, 0, 4, ForKind::kSerial,
                               for_loop(j, 0, 8, ForKind::kSerial, for_loop(k, 0, 2, ForKind::kSerial, s)))),
            "for i, j, k in T.grid(4, 8, 2):\n    T.evaluate(i + j + k)\n");
  // A parallel inner loop, an extent that uses an outer variable, and a
  // loop not starting at zero each end the group.
  EXPECT_EQ(to_string(for_loop(i, 0, 4, ForKind::kSerial,
                               for_loop(j, 0, 8, ForKind::kSerial, for_loop(k, 0, 2, ForKind::kParallel, s)))),
            "for i, j in T.grid(4, 8):\n    for k in T.parallel(2):\n        T.evaluate(i + j + k)\n");
  EXPECT_EQ(to_string(for_loop(i, 0, 4, ForKind::kSerial, for_loop(j, 0, i + 1, ForKind::kSerial, evaluate(j)))),
            "for i in range(4):\n    for j in range(i + 1):\n        T.evaluate(j)\n");
  EXPECT_EQ(to_string(for_loop(i, 0, 4, ForKind::kSerial, for_loop(j, 1, 3, ForKind::kSerial, evaluate(j)))),
            "for i in range(4):\n    for j in range(1, 4):\n        T.evaluate(j)\n");
}

TEST_F(StmtPrinter, SequencesAndConditionals) {
  Stmt s = seq({store_ij(), evaluate(i)});
  EXPECT_EQ(to_string(s), "A[i, j] = A[i, j] + T.float32(1)\nT.evaluate(i)\n");
  EXPECT_EQ(to_string(if_then_else(i < 4 && j > 2, evaluate(i))), "if i < 4 and j > 2:\n    T.evaluate(i)\n");
  EXPECT_EQ(to_string(if_then_else(i < 4, s, if_then_else(eq(j, 0), evaluate(j), evaluate(i + j)))),
            R"(if i < 4:
    A[i, j] = A[i, j] + T.float32(1)
    T.evaluate(i)
else:
    if j == 0:
        T.evaluate(j)
    else:
        T.evaluate(i + j)
)");
  auto empty = std::make_shared<SeqStmtNode>();
  EXPECT_EQ(to_string(Stmt(ObjectPtr(empty))), "pass\n");
}

TEST_F(StmtPrinter, LetInTailPositionIsADeclaration) {
  Var t("t");
  Stmt let = let_stmt(t, i * 4, seq({evaluate(t), evaluate(t + 1)}));
  EXPECT_EQ(to_string(let), "t: T.int32 = i * 4\nT.evaluate(t)\nT.evaluate(t + 1)\n");
  // Followed by another statement, its body needs its own suite.
  EXPECT_EQ(to_string(seq({let, evaluate(i)})), R"(with T.LetStmt(i * 4) as t:
    T.evaluate(t)
    T.evaluate(t + 1)
T.evaluate(i)
)");
  Var w("w", DataType::Int64());
  EXPECT_EQ(to_string(let_stmt(w, cast(DataType::Int64(), i), evaluate(w))),
            "w: T.int64 = T.Cast(\"int64\", i)\nT.evaluate(w)\n");
}

TEST_F(StmtPrinter, AllocateInTailPositionIsADeclaration) {
  Buffer tmp("A_local", f32, {16}, "local");
  Stmt fill = buffer_store(tmp, 0.0f, {i});
  EXPECT_EQ(to_string(allocate(tmp, fill)),
            "A_local = T.allocate((16,), \"float32\", scope=\"local\")\nA_local[i] = T.float32(0)\n");
  EXPECT_EQ(to_string(seq({allocate(tmp, fill), evaluate(i)})),
            R"(with T.allocate((16,), "float32", scope="local") as A_local:
    A_local[i] = T.float32(0)
T.evaluate(i)
)");
}

TEST_F(StmtPrinter, BlockWithEveryPart) {
  Buffer B("B", f32, {64, 128});
  Buffer cache("B_shared", f32, {8, 128}, "shared");
  Var vi("vi"), vj("vj");
  Stmt body = buffer_store(A, buffer_load(B, {vi, vj * 2}), {vi, vj});
  Stmt b = block({.name = "copy",
                  .iter_vars = {IterVar(vi, Range(0, 64), IterType::kSpatial),
                                IterVar(vj, Range(8, 32), IterType::kReduce)},
                  .reads = {BufferRegion(B, {Range(vi, 1), Range(0, 128)}), BufferRegion(cache, {Range(vi * 4, 4), Range(vj, 1)})},
                  .writes = {BufferRegion(A, {Range(vi, 1), Range(vj, 1)})},
                  .init = evaluate(Expr(1)),
                  .body = body,
                  .alloc_buffers = {cache},
                  .annotations = {{"meta_schedule.tiling_structure", string_imm("SSRSRS")}}});
  EXPECT_EQ(to_string(block_realize({i, j + 8}, i < 60, b)), R"(with T.block("copy"):
    vi = T.axis.spatial(64, i)
    vj = T.axis.reduce((8, 40), j + 8)
    T.where(i < 60)
    T.reads(B[vi, 0:128], B_shared[vi * 4:vi * 4 + 4, vj])
    T.writes(A[vi, vj])
    T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
    B_shared = T.alloc_buffer((8, 128), "float32", scope="shared")
    with T.init():
        T.evaluate(1)
    A[vi, vj] = B[vi, vj * 2]
)");
  // A block without its realize prints its axes without values.
  EXPECT_EQ(to_string(b), R"(with T.block("copy", no_realize=True):
    vi = T.axis.spatial(64)
    vj = T.axis.reduce((8, 40))
    T.reads(B[vi, 0:128], B_shared[vi * 4:vi * 4 + 4, vj])
    T.writes(A[vi, vj])
    T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
    B_shared = T.alloc_buffer((8, 128), "float32", scope="shared")
    with T.init():
        T.evaluate(1)
    A[vi, vj] = B[vi, vj * 2]
)");
}

TEST_F(StmtPrinter, DistinctObjectsWithOneNameAreSuffixed) {
  Var i2("i");
  Buffer A2("A", f32, {64, 64});
  Stmt s = for_loop(i, 0, 4, ForKind::kSerial,
                    for_loop(i2, 0, 4, ForKind::kSerial, buffer_store(A2, buffer_load(A, {i, i2}), {i2, i})));
  EXPECT_EQ(to_string(s), "for i, i_1 in T.grid(4, 4):\n    A[i_1, i] = A_1[i, i_1]\n");
  // Variables and buffers share one namespace.
  Var a("A");
  EXPECT_EQ(to_string(buffer_store(A, cast(f32, a), {a, a})), "A[A_1, A_1] = T.Cast(\"float32\", A_1)\n");
}

TEST_F(StmtPrinter, FreeVariablesKeepTheirType) {
  Var n("n", DataType::Int64());
  Buffer L("L", f32, {Expr(int64_t{8})});
  EXPECT_EQ(to_string(buffer_store(L, 0.0f, {n})), "L[T.Var(\"n\", \"int64\")] = T.float32(0)\n");
}

TEST_F(StmtPrinter, SharedContextAndIndentation) {
  PrintContext ctx;
  Var i2("i");
  EXPECT_EQ(ctx.str(i2 + 1), "i + 1");
  std::ostringstream os;
  print_stmt(os, ctx, for_loop(i, 0, 2, ForKind::kSerial, evaluate(i + i2)), 1);
  EXPECT_EQ(os.str(), "    for i_1 in range(2):\n        T.evaluate(i_1 + i)\n");
  std::ostringstream os2;
  os2 << evaluate(i);
  EXPECT_EQ(os2.str(), "T.evaluate(i)\n");
}

}  // namespace
}  // namespace kiln
