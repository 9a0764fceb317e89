// Before/after tests of the lowering passes in tir/transform/, one behaviour
// each. Expected programs are built with the same constructors and compared
// structurally (variable names do not matter).
#include <gtest/gtest.h>

#include "core/structural.h"
#include "tir/functor.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/legalize_parallel.h"
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

// for i, k: block C(vi = i, vk = k): init C[vi] = 0; C[vi] += A[vi, vk]
TEST(LowerBlocks, InitBecomesGuardOnReduceStart) {
  Buffer A("A", f32, {c(4), c(8)}), C("C", f32, {c(4)});
  Var i("i"), k("k"), vi("vi"), vk("vk");
  Stmt blk = block({.name = "C",
                    .iter_vars = {IterVar(vi, Range(c(0), c(4)), IterType::kSpatial),
                                  IterVar(vk, Range(c(0), c(8)), IterType::kReduce)},
                    .reads = {BufferRegion::full(A)},
                    .writes = {BufferRegion::full(C)},
                    .init = buffer_store(C, fc(0), {vi}),
                    .body = buffer_store(C, buffer_load(C, {vi}) + buffer_load(A, {vi, vk}), {vi})});
  PrimFunc f("f", {A, C}, loop(i, 4, loop(k, 8, block_realize({i, k}, Expr(), blk))));

  Stmt expected = loop(i, 4, loop(k, 8, seq({if_then_else(eq(k, c(0)), buffer_store(C, fc(0), {i})),
                                             buffer_store(C, buffer_load(C, {i}) + buffer_load(A, {i, k}), {i})})));
  EXPECT_TRUE(structural_equal(lower_blocks(f).body(), expected));
}

TEST(LowerBlocks, PredicateGuardsAndAllocBuffersBecomeAllocate) {
  Buffer B("B", f32, {c(10)}), T("T", f32, {c(16)});
  Var i("i"), vi("vi");
  Stmt blk = block({.name = "B",
                    .iter_vars = {IterVar(vi, Range(c(0), c(10)), IterType::kSpatial)},
                    .body = buffer_store(B, fc(1), {vi})});
  Stmt root = block({.name = "root",
                     .body = loop(i, 16, block_realize({i}, lt(i, c(10)), blk)),
                     .alloc_buffers = {T}});
  PrimFunc f("f", {B}, block_realize({}, Expr(), root));
  Stmt expected = allocate(T, loop(i, 16, if_then_else(lt(i, c(10)), buffer_store(B, fc(1), {i}))));
  EXPECT_TRUE(structural_equal(lower_blocks(f).body(), expected));
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
  Buffer A("A", f32, {c(8)}), B("B", f32, {c(8)});
  Var j("j");
  PrimFunc f("f", {A, B}, loop(j, 8, buffer_store(B, buffer_load(A, {j}) + fc(1), {j}), ForKind::kVectorized));
  Expr r = ramp(c(0), c(1), 8);
  Stmt expected = buffer_store(B, buffer_load(A, {r}) + broadcast(fc(1), 8), {r});
  EXPECT_TRUE(structural_equal(vectorize_loops(f, 16).body(), expected));
}

TEST(VectorizeLoops, ChunksAndNarrowerTail) {
  Buffer A("A", f32, {c(20)});
  Var j("j"), jo("jo");
  PrimFunc f("f", {A}, loop(j, 20, buffer_store(A, fc(2), {j}), ForKind::kVectorized));
  // 20 = 2 chunks of 8 lanes + a 4-lane tail.
  Stmt expected = seq({loop(jo, 2, buffer_store(A, broadcast(fc(2), 8), {ramp(c(0) + jo * c(8), c(1), 8)})),
                       buffer_store(A, broadcast(fc(2), 4), {ramp(c(16), c(1), 4)})});
  EXPECT_TRUE(structural_equal(vectorize_loops(f, 8).body(), expected));
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
  Buffer A("A", f32, {c(3)});
  Var j("j");
  PrimFunc f("f", {A}, loop(j, 3, buffer_store(A, fc(0), {j}), ForKind::kUnrolled));
  Stmt expected = seq({buffer_store(A, fc(0), {c(0)}), buffer_store(A, fc(0), {c(1)}), buffer_store(A, fc(0), {c(2)})});
  EXPECT_TRUE(structural_equal(unroll_loops(f).body(), expected));
  // Above the limit it stays a loop.
  EXPECT_TRUE(structural_equal(unroll_loops(f, 2).body(), f.body()));
}

TEST(UnrollLoops, AutoUnrollWithinTheAnnotatedStep) {
  // for i (step S annotated): for j in 2: for k in 3: for v in vectorized(4): A[j, k, v] = 0
  Buffer A("A", f32, {c(24)});
  Var i("i"), j("j"), k("k"), v("v");
  auto nest = [&](int64_t step) {
    Stmt inner = loop(v, 4, buffer_store(A, fc(0), {j * 12 + k * 4 + v}), ForKind::kVectorized);
    return PrimFunc("f", {A},
                    for_loop(i, c(0), c(1), ForKind::kParallel, loop(j, 2, loop(k, 3, inner)), "",
                             {{kAutoUnrollMaxStep, c(static_cast<int>(step))}}));
  };
  auto loops_left = [](const PrimFunc& f) {
    int n = 0;
    post_order_visit(f.body(), [&](const Stmt& s) { n += s.kind() == StmtKind::For; });
    return n;
  };
  // Step 6 holds both loops' 2 x 3 copies of the vector store: only i and the six vector loops remain.
  EXPECT_EQ(loops_left(unroll_loops(nest(6))), 1 + 6);
  // Step 4 holds k's 3 copies but not j's 6: k unrolls, j stays.
  EXPECT_EQ(loops_left(unroll_loops(nest(4))), 1 + 1 + 3);
  // Step 0: nothing unrolls.
  EXPECT_EQ(loops_left(unroll_loops(nest(0))), 4);
}

TEST(UnswitchLoops, APartialTilesGuardMovesOutOfTheReductionLoops) {
  // Before: for r: for k0: for k1: C[0] += A[k]; if r < 170: C[1] += A[k]
  // After:  for r: if r < 170: (for k0: for k1: both) else: (for k0: for k1: the first)
  Buffer A("A", f32, {c(64)}), C("C", f32, {c(2)});
  Var r("r"), k0("k0"), k1("k1");
  Expr k = k0 * 8 + k1;
  Stmt first = buffer_store(C, buffer_load(C, {c(0)}) + buffer_load(A, {k}), {c(0)});
  Stmt second = buffer_store(C, buffer_load(C, {c(1)}) + buffer_load(A, {k}), {c(1)});
  Expr guard = lt(r, c(170));
  PrimFunc f("f", {A, C}, loop(r, 171, loop(k0, 8, loop(k1, 8, seq({first, if_then_else(guard, second)})))));
  Stmt expected = loop(r, 171, if_then_else(guard, loop(k0, 8, loop(k1, 8, seq({first, second}))),
                                            loop(k0, 8, loop(k1, 8, first))));
  EXPECT_TRUE(structural_equal(unswitch_loops(f).body(), expected));
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
  // Before: for r: for k: if r < 170 and k < 5: C[k] = 0
  // After:  for r: if r < 170: for k: if k < 5: C[k] = 0
  Buffer C("C", f32, {c(8)});
  Var r("r"), k("k");
  Stmt store = buffer_store(C, fc(0), {k});
  PrimFunc f("f", {C}, loop(r, 171, loop(k, 8, if_then_else(logical_and(lt(r, c(170)), lt(k, c(5))), store))));
  Stmt expected = loop(r, 171, if_then_else(lt(r, c(170)), loop(k, 8, if_then_else(lt(k, c(5)), store))));
  EXPECT_TRUE(structural_equal(unswitch_loops(f).body(), expected));
  // Before and after: both conjuncts name k; the function comes back as it was.
  PrimFunc own("f", {C}, loop(k, 8, if_then_else(logical_and(lt(c(1), k), lt(k, c(5))), store)));
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

TEST(SerializeNestedParallel, InnerParallelBecomesSerial) {
  Buffer A("A", f32, {c(4), c(4)});
  Var i("i"), j("j");
  Stmt store = buffer_store(A, fc(0), {i, j});
  PrimFunc f("f", {A}, loop(i, 4, loop(j, 4, store, ForKind::kParallel), ForKind::kParallel));
  Stmt expected = loop(i, 4, loop(j, 4, store), ForKind::kParallel);
  EXPECT_TRUE(structural_equal(serialize_nested_parallel(f).body(), expected));
}

TEST(Passes, ReturnSameFunctionWhenNothingToDo) {
  Buffer A("A", f32, {c(4)});
  Var i("i");
  PrimFunc f("f", {A}, loop(i, 4, buffer_store(A, fc(0), {i})));
  EXPECT_TRUE(vectorize_loops(f, 16).same_as(f));
  EXPECT_TRUE(unroll_loops(f).same_as(f));
  EXPECT_TRUE(serialize_nested_parallel(f).same_as(f));
  EXPECT_TRUE(unswitch_loops(f).same_as(f));
}

}  // namespace
}  // namespace kiln
