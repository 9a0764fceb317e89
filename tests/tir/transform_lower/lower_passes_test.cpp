// Before/after tests of the lowering passes in tir/transform/, one behaviour
// each: the program before and after as IR text (docs/ir_text.md), compared
// structurally by EXPECT_IR (support/expect_ir.h), which prints a line diff
// when they differ. Tests of what text cannot say (a buffer's storage
// alignment, bounded code size) build the IR with the constructors.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/structural.h"
#include "support/expect_ir.h"
#include "tir/parser/parser.h"
#include "tir/functor.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/legalize_parallel.h"
#include "tir/transform/lower.h"
#include "tir/transform/lower_blocks.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/unswitch_loops.h"
#include "tir/transform/vectorize_loop.h"

namespace kiln {
namespace {

const DataType f32 = DataType::Float32();
const DataType i32 = DataType::Int32();

Expr c(int64_t v) { return int_imm(i32, v); }
Expr fc(double v) { return float_imm(f32, v); }
Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return for_loop(v, c(0), c(extent), kind, std::move(body));
}

TEST(LowerBlocks, InitBecomesGuardOnReduceStart) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        with T.block("C"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce(8, k)
            T.reads(A[0:4, 0:8])
            T.writes(C[0:4])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
)");
  EXPECT_IR(lower_blocks(before), R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        if k == 0:
            C[i] = T.float32(0)
        C[i] = C[i] + A[i, k]
)");
}

TEST(LowerBlocks, PredicateGuardsAndAllocBuffersBecomeAllocate) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(B: T.Buffer((10,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        T_1 = T.alloc_buffer((16,), "float32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                T.where(i < 10)
                T.reads()
                T.writes()
                B[vi] = T.float32(1)
)");
  EXPECT_IR(lower_blocks(before), R"(
@T.prim_func
def f(B: T.Buffer((10,), "float32")):
    T_1 = T.allocate((16,), "float32")
    for i in range(16):
        if i < 10:
            B[i] = T.float32(1)
)");
}

TEST(FlattenBuffers, RowMajorWithStorageAlign) {
  Buffer A("A", f32, {c(4), c(30)});
  auto aligned = std::make_shared<BufferNode>(*A);
  aligned->align_factor = 16;
  Buffer P{ObjectPtr(aligned)};
  Var i("i"), j("j");
  PrimFunc f("f", {P}, loop(i, 4, loop(j, 30, buffer_store(P, fc(0), {i, j}))));
  PrimFunc g = flatten_buffers(f);
  ASSERT_EQ(g.params().size(), 1u);
  const Buffer& flat = g.params()[0];
  ASSERT_EQ(flat.ndim(), 1);
  EXPECT_TRUE(is_const_int(flat.shape()[0], 4 * 32));
  Stmt expected = loop(i, 4, loop(j, 30, buffer_store(flat, fc(0), {i * c(32) + j})));
  EXPECT_TRUE(structural_equal(g.body(), expected));
}

TEST(FlattenBuffers, StridesOfDenseBuffer) {
  Buffer A("A", f32, {c(2), c(3), c(5)});
  EXPECT_EQ(buffer_strides(A), (std::vector<int64_t>{15, 5, 1}));
  EXPECT_EQ(buffer_flat_size(A), 30);
}

// storage_align on any axis: that axis's stride is padded and the outer
// strides build on it.
Buffer aligned_buffer(std::vector<Expr> shape, int64_t axis, int64_t factor, int64_t offset) {
  auto n = std::make_shared<BufferNode>(*Buffer("A", f32, std::move(shape)));
  n->align_axis = axis;
  n->align_factor = factor;
  n->align_offset = offset;
  n->validate();
  return Buffer(ObjectPtr(std::move(n)));
}

TEST(FlattenBuffers, StridesWithStorageAlignOnAnyAxis) {
  EXPECT_EQ(buffer_strides(aligned_buffer({c(2), c(3), c(5)}, 1, 4, 3)), (std::vector<int64_t>{21, 7, 1}));
  EXPECT_EQ(buffer_flat_size(aligned_buffer({c(2), c(3), c(5)}, 1, 4, 3)), 42);
  EXPECT_EQ(buffer_strides(aligned_buffer({c(2), c(3), c(5)}, 0, 16, 0)), (std::vector<int64_t>{16, 5, 1}));
  EXPECT_EQ(buffer_strides(aligned_buffer({c(2), c(3), c(5)}, 1, 5, 0)), (std::vector<int64_t>{15, 5, 1}));
  EXPECT_EQ(buffer_strides(aligned_buffer({c(3), c(4)}, 1, 2, 1)), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(buffer_strides(aligned_buffer({c(3), c(4)}, 1, 4, 2)), (std::vector<int64_t>{8, 2}));
}

TEST(FlattenBuffers, AccessesThroughAMiddleAxisAlignment) {
  Buffer P = aligned_buffer({c(2), c(3), c(5)}, 1, 4, 3);
  Var i("i"), j("j"), k("k");
  PrimFunc f("f", {P}, loop(i, 2, loop(j, 3, loop(k, 5, buffer_store(P, fc(0), {i, j, k})))));
  PrimFunc g = flatten_buffers(f);
  const Buffer& flat = g.params()[0];
  EXPECT_TRUE(is_const_int(flat.shape()[0], 42));
  Stmt expected = loop(i, 2, loop(j, 3, loop(k, 5, buffer_store(flat, fc(0), {i * c(21) + j * c(7) + k}))));
  EXPECT_TRUE(structural_equal(g.body(), expected));
}

TEST(VectorizeLoops, WholeExtentWithinLanes) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for j in T.vectorized(8):
        B[j] = A[j] + T.float32(1)
)");
  EXPECT_IR(vectorize_loops(before, 16), R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    B[T.Ramp(0, 1, 8)] = A[T.Ramp(0, 1, 8)] + T.Broadcast(T.float32(1), 8)
)");
}

TEST(VectorizeLoops, ChunksAndNarrowerTail) {
  // 20 = 2 chunks of 8 lanes + a 4-lane tail.
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((20,), "float32")):
    for j in T.vectorized(20):
        A[j] = T.float32(2)
)");
  EXPECT_IR(vectorize_loops(before, 8), R"(
@T.prim_func
def f(A: T.Buffer((20,), "float32")):
    for j_outer in range(2):
        A[T.Ramp(0 + j_outer * 8, 1, 8)] = T.Broadcast(T.float32(2), 8)
    A[T.Ramp(16, 1, 4)] = T.Broadcast(T.float32(2), 4)
)");
}

TEST(VectorizeLoops, StoreToLoopInvariantIndexStaysSerial) {
  Buffer A("A", f32, {c(8)}), S("S", f32, {c(1)});
  Var j("j");
  Stmt body = buffer_store(S, buffer_load(S, {c(0)}) + buffer_load(A, {j}), {c(0)});
  PrimFunc f("f", {A, S}, loop(j, 8, body, ForKind::kVectorized));
  EXPECT_TRUE(structural_equal(vectorize_loops(f, 16).body(), loop(j, 8, body)));
}

TEST(VectorizeLoops, ConditionOnLoopVarStaysSerial) {
  Buffer A("A", f32, {c(8)});
  Var j("j");
  Stmt body = if_then_else(lt(j, c(3)), buffer_store(A, fc(0), {j}));
  PrimFunc f("f", {A}, loop(j, 8, body, ForKind::kVectorized));
  EXPECT_TRUE(structural_equal(vectorize_loops(f, 16).body(), loop(j, 8, body)));
}

TEST(UnrollLoops, ConstantExtentExpands) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((3,), "float32")):
    for j in T.unroll(3):
        A[j] = T.float32(0)
)");
  EXPECT_IR(unroll_loops(before), R"(
@T.prim_func
def f(A: T.Buffer((3,), "float32")):
    A[0] = T.float32(0)
    A[1] = T.float32(0)
    A[2] = T.float32(0)
)");
  // Above the limit it stays a loop.
  EXPECT_TRUE(unroll_loops(before, 2).same_as(before));
}

TEST(UnrollLoops, AutoUnrollWithinTheAnnotatedStep) {
  // for i (step S annotated): for j in 5: for k in 6: for v in vectorized(4): A[j, k, v] = 0
  // (loops longer than kShortLoopTrips, which unroll whatever the step).
  Buffer A("A", f32, {c(120)});
  Var i("i"), j("j"), k("k"), v("v");
  auto nest = [&](int64_t step) {
    Stmt inner = loop(v, 4, buffer_store(A, fc(0), {j * 24 + k * 4 + v}), ForKind::kVectorized);
    return PrimFunc("f", {A},
                    for_loop(i, c(0), c(1), ForKind::kParallel, loop(j, 5, loop(k, 6, inner)), "",
                             {{kAutoUnrollMaxStep, c(static_cast<int>(step))}}));
  };
  auto loops_left = [](const PrimFunc& f) {
    int n = 0;
    post_order_visit(f.body(), [&](const Stmt& s) { n += s.kind() == StmtKind::For; });
    return n;
  };
  // Step 30 holds both loops' 5 x 6 copies of the vector store: only i and the thirty vector loops remain.
  EXPECT_EQ(loops_left(unroll_loops(nest(30))), 1 + 30);
  // Step 8 holds k's 6 copies but not j's 30: k unrolls, j stays.
  EXPECT_EQ(loops_left(unroll_loops(nest(8))), 1 + 1 + 6);
  // Step 0: nothing unrolls.
  EXPECT_EQ(loops_left(unroll_loops(nest(0))), 4);
}

TEST(UnrollLoops, AShortLoopUnrollsWithoutAnAnnotation) {
  // Two trips of two statements: LLVM would unroll it too, after its loop
  // passes had paid for it.
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(2):
        for j in range(2):
            A[i * 2 + j] = B[i * 2 + j] + T.float32(1)
)");
  EXPECT_IR(unroll_loops(before), R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0 * 2 + 0] = B[0 * 2 + 0] + T.float32(1)
    A[0 * 2 + 1] = B[0 * 2 + 1] + T.float32(1)
    A[1 * 2 + 0] = B[1 * 2 + 0] + T.float32(1)
    A[1 * 2 + 1] = B[1 * 2 + 1] + T.float32(1)
)");
}

TEST(UnrollLoops, ACopyKeepsTheRowItsConstantPicks) {
  // A body that picks a matrix row by the loop variable (Winograd's
  // transforms, ops/winograd.h): each copy is simplified, so the select
  // chain folds to its one row (a body with no such select is copied as it
  // is: the test above keeps its 0 * 2).
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((3,), "float32"), B: T.Buffer((4,), "float32")):
    for j in T.unroll(3):
        A[j] = T.Select(j == 0, B[0] - B[2], T.Select(j == 1, B[1] + B[2], B[1] - B[3]))
)");
  EXPECT_IR(unroll_loops(before), R"(
@T.prim_func
def f(A: T.Buffer((3,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = B[0] - B[2]
    A[1] = B[1] + B[2]
    A[2] = B[1] - B[3]
)");
}

TEST(UnrollLoops, ALongerLoopOrALargerBodyStaysALoop) {
  Buffer A("A", f32, {c(64)});
  Var i("i");
  // More than kShortLoopTrips trips.
  PrimFunc longer("f", {A}, loop(i, kShortLoopTrips + 1, buffer_store(A, fc(0), {i})));
  EXPECT_TRUE(unroll_loops(longer).same_as(longer));
  // Copies over kShortLoopStmts statements.
  std::vector<Stmt> body;
  for (int k = 0; k < kShortLoopStmts / 2 + 1; ++k) body.push_back(buffer_store(A, fc(0), {i * c(16) + c(k)}));
  PrimFunc larger("f", {A}, loop(i, 2, seq(body)));
  EXPECT_TRUE(unroll_loops(larger).same_as(larger));
}

TEST(UnswitchLoops, APartialTilesGuardMovesOutOfTheReductionLoops) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), C: T.Buffer((2,), "float32")):
    for r, k0, k1 in T.grid(171, 8, 8):
        C[0] = C[0] + A[k0 * 8 + k1]
        if r < 170:
            C[1] = C[1] + A[k0 * 8 + k1]
)");
  EXPECT_IR(unswitch_loops(before), R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), C: T.Buffer((2,), "float32")):
    for r in range(171):
        if r < 170:
            for k0, k1 in T.grid(8, 8):
                C[0] = C[0] + A[k0 * 8 + k1]
                C[1] = C[1] + A[k0 * 8 + k1]
        else:
            for k0, k1 in T.grid(8, 8):
                C[0] = C[0] + A[k0 * 8 + k1]
)");
}

TEST(UnswitchLoops, AConditionOnTheLoopsOwnVariablesOrOnMemoryStays) {
  Buffer A("A", f32, {c(64)}), N("N", i32, {c(1)});
  Var i("i"), j("j");
  Stmt store = buffer_store(A, fc(0), {i * 8 + j});
  // Before and after: the guard reads j, bound by the loop it is in.
  PrimFunc own("f", {A}, loop(i, 8, loop(j, 8, if_then_else(lt(j, c(4)), store))));
  EXPECT_TRUE(structural_equal(unswitch_loops(own).body(), own.body()));
  // Before and after: the guard reads memory, which the loop may write.
  PrimFunc loads("f", {A, N}, loop(i, 8, loop(j, 8, if_then_else(lt(buffer_load(N, {c(0)}), c(4)), store))));
  EXPECT_TRUE(structural_equal(unswitch_loops(loads).body(), loads.body()));
  // Before and after: the guard divides by a variable, which a guard
  // inside the loop may be all that keeps from zero.
  Var n("n"), m("m");
  PrimFunc divides("f", {A}, loop(i, 8, loop(j, 8, if_then_else(lt(floordiv(n, m), c(4)), store))));
  EXPECT_TRUE(structural_equal(unswitch_loops(divides).body(), divides.body()));
}

TEST(UnswitchLoops, AConjunctTheLoopCannotChangeMovesOutAlone) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(C: T.Buffer((8,), "float32")):
    for r, k in T.grid(171, 8):
        if r < 170 and k < 5:
            C[k] = T.float32(0)
)");
  EXPECT_IR(unswitch_loops(before), R"(
@T.prim_func
def f(C: T.Buffer((8,), "float32")):
    for r in range(171):
        if r < 170:
            for k in range(8):
                if k < 5:
                    C[k] = T.float32(0)
)");
  // Before and after: both conjuncts name k; the function comes back as it was.
  const PrimFunc own = parse_prim_func(R"(
@T.prim_func
def f(C: T.Buffer((8,), "float32")):
    for k in range(8):
        if 1 < k and k < 5:
            C[k] = T.float32(0)
)");
  EXPECT_TRUE(unswitch_loops(own).same_as(own));
}

TEST(UnswitchLoops, ManyConditionsMakeBoundedCode) {
  // for k: (if n < 1: A[k] = 0), (if n < 2: A[k + 8] = 0), ... ten guards
  // that the loop cannot change: split on all of them, the loop would come
  // in 2^10 versions. The versions stay within twice kMaxUnswitchStmts.
  Buffer A("A", f32, {c(88)});
  Var n("n"), k("k");
  std::vector<Stmt> guarded;
  for (int g = 1; g <= 10; ++g) guarded.push_back(if_then_else(lt(n, c(g)), buffer_store(A, fc(0), {k + c(8 * g)})));
  PrimFunc f("f", {A}, loop(k, 8, seq(guarded)));
  int64_t stmts = 0, ifs_outside = 0;
  post_order_visit(unswitch_loops(f).body(), [&](const Stmt& s) {
    ++stmts;
    ifs_outside += s.kind() == StmtKind::IfThenElse;
  });
  EXPECT_LE(stmts, 2 * kMaxUnswitchStmts + 8);
  EXPECT_GT(ifs_outside, 10) << "some guards moved out";
}

TEST(UnswitchLoops, AllLoopsTogetherAtMostDoubleTheCode) {
  // Forty sibling loops, each with ten guards it cannot change: each alone
  // may grow to twice kMaxUnswitchStmts, and forty of them did (a
  // candidate went from 8,658 to 13.6 million IR nodes). Together they add
  // at most the function's own size.
  Buffer A("A", f32, {c(88)});
  Var n("n");
  std::vector<Stmt> loops;
  for (int l = 0; l < 40; ++l) {
    Var k("k" + std::to_string(l));
    std::vector<Stmt> guarded;
    for (int g = 1; g <= 10; ++g)
      guarded.push_back(if_then_else(lt(n, c(g)), buffer_store(A, fc(l), {k + c(8 * g)})));
    loops.push_back(loop(k, 8, seq(guarded)));
  }
  PrimFunc f("f", {A}, seq(loops));
  auto stmts = [](const Stmt& s) {
    int64_t count = 0;
    post_order_visit(s, [&](const Stmt&) { ++count; });
    return count;
  };
  const int64_t before = stmts(f.body());
  const int64_t after = stmts(unswitch_loops(f).body());
  EXPECT_GT(after, before) << "some loops unswitched";
  EXPECT_LE(after, before + std::max(2 * kMaxUnswitchStmts, before) + 40);
}

TEST(Lower, CodeAboveTheLimitIsRefusedNamingItsSize) {
  // An unroll loop of 64 copies of 4 statements: 64 x 4 stores and their
  // expressions, far above a limit of 100 nodes.
  Buffer A("A", f32, {c(256)});
  Var i("i");
  std::vector<Stmt> body;
  for (int k = 0; k < 4; ++k) body.push_back(buffer_store(A, fc(0), {i * c(4) + c(k)}));
  PrimFunc f("f", {A}, loop(i, 64, seq(body), ForKind::kUnrolled));
  LowerOptions o;
  o.max_code_size = 100;
  try {
    lower(f, o);
    FAIL() << "not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("code too large: f is"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("above the limit of 100"), std::string::npos) << e.what();
  }
  o.max_code_size = 0;
  EXPECT_NO_THROW(lower(f, o));
}

TEST(SerializeNestedParallel, InnerParallelBecomesSerial) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i in T.parallel(4):
        for j in T.parallel(4):
            A[i, j] = T.float32(0)
)");
  EXPECT_IR(serialize_nested_parallel(before), R"(
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i in T.parallel(4):
        for j in range(4):
            A[i, j] = T.float32(0)
)");
}

TEST(ExpectIr, AMismatchShowsBothAsALineDiff) {
  const PrimFunc f = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
)");
  const ::testing::AssertionResult r = testing::ir_matches(f, R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(1)
)");
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_NE(m.find("-         A[i] = T.float32(1)"), std::string::npos) << m;
  EXPECT_NE(m.find("+         A[i] = T.float32(0)"), std::string::npos) << m;
  EXPECT_NE(m.find("      for i in range(4):"), std::string::npos) << "common lines stay: " << m;
}

TEST(Passes, ReturnSameFunctionWhenNothingToDo) {
  Buffer A("A", f32, {c(64)});
  Var i("i");
  PrimFunc f("f", {A}, loop(i, 64, buffer_store(A, fc(0), {i})));
  EXPECT_TRUE(vectorize_loops(f, 16).same_as(f));
  EXPECT_TRUE(unroll_loops(f).same_as(f));
  EXPECT_TRUE(serialize_nested_parallel(f).same_as(f));
  EXPECT_TRUE(unswitch_loops(f).same_as(f));
}

}  // namespace
}  // namespace kiln
