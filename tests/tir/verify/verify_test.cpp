// The verifier: for each rule, a program that keeps it and one that breaks it.
#include <gtest/gtest.h>

#include "tir/analysis/verify.h"

namespace kiln {
namespace {

const DataType kF32 = DataType::Float32();

Stmt loop(const Var& v, int extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return for_loop(v, Expr(0), Expr(extent), kind, std::move(body));
}
IterVar spatial(const Var& v, int extent) { return IterVar(v, Range::from_extent(Expr(extent)), IterType::kSpatial); }
IterVar reduce_axis(const Var& v, int extent) { return IterVar(v, Range::from_extent(Expr(extent)), IterType::kReduce); }
Stmt root(Stmt body, std::vector<Buffer> allocs = {}) {
  return block_realize({}, Expr(), block({.name = "root", .body = std::move(body), .alloc_buffers = std::move(allocs)}));
}

// Expects verify to accept f.
void expect_valid(const PrimFunc& f) {
  auto e = verify_error(f);
  EXPECT_FALSE(e.has_value()) << *e;
  EXPECT_NO_THROW(verify(f));
}

// Expects verify to reject f with a message containing `part`.
void expect_invalid(const PrimFunc& f, const std::string& part) {
  auto e = verify_error(f);
  ASSERT_TRUE(e.has_value()) << "expected: " << part;
  EXPECT_NE(e->find(part), std::string::npos) << *e;
  EXPECT_THROW(verify(f), Error);
}

// A node built field by field, skipping the checks of its constructor: how a
// broken pass or a corrupt JSON file would hand it over.
template <typename N, typename F>
Stmt raw(F&& fill) {
  auto n = std::make_shared<N>();
  fill(*n);
  return Stmt(ObjectPtr(std::move(n)));
}

// C[i, j] = sum_k A[i, k] * B[k, j], 4 x 4 x 4, the block reading loops
// through its iter values.
struct Matmul {
  Buffer A{"A", kF32, {Expr(4), Expr(4)}}, B{"B", kF32, {Expr(4), Expr(4)}}, C{"C", kF32, {Expr(4), Expr(4)}};
  Var i{"i"}, j{"j"}, k{"k"}, vi{"vi"}, vj{"vj"}, vk{"vk"};

  PrimFunc make(Expr a_row, std::vector<Expr> values) const {
    Stmt body = buffer_store(C, buffer_load(C, {vi, vj}) + buffer_load(A, {a_row, vk}) * buffer_load(B, {vk, vj}), {vi, vj});
    Stmt blk = block({.name = "C",
                      .iter_vars = {spatial(vi, 4), spatial(vj, 4), reduce_axis(vk, 4)},
                      .reads = {BufferRegion::full(A), BufferRegion::full(B)},
                      .writes = {BufferRegion::full(C)},
                      .init = buffer_store(C, Expr(0.0f), {vi, vj}),
                      .body = body});
    return PrimFunc("matmul", {A, B, C}, root(loop(i, 4, loop(j, 4, loop(k, 4, block_realize(values, Expr(), blk))))));
  }
  PrimFunc valid() const { return make(vi, {i, j, k}); }
};

TEST(Verify, VariablesMustBeDefined) {
  Matmul m;
  expect_valid(m.valid());
  Var ghost("ghost");
  expect_invalid(m.make(ghost, {m.i, m.j, m.k}), "variable ghost is used in block C but never defined");
}

TEST(Verify, ShapeVariablesAreDefinedByParameters) {
  Var n("n");
  Buffer A("A", kF32, {n});
  Var i("i");
  expect_valid(PrimFunc("f", {A}, for_loop(i, Expr(0), n, ForKind::kSerial, buffer_store(A, Expr(0.0f), {i}))));
  Var m("m");
  expect_invalid(PrimFunc("f", {A}, for_loop(i, Expr(0), m, ForKind::kSerial, buffer_store(A, Expr(0.0f), {i}))),
                 "variable m is used but never defined");
}

TEST(Verify, VariablesAreNotDefinedTwice) {
  Buffer A("A", kF32, {Expr(4)});
  Var i("i");
  Stmt store = buffer_store(A, Expr(0.0f), {i});
  Stmt first = loop(i, 4, store);
  // The same loop reached twice through a shared subtree is one definition.
  expect_valid(PrimFunc("f", {A}, seq({first, first})));
  expect_invalid(PrimFunc("f", {A}, seq({first, loop(i, 2, store)})), "variable i is defined twice");
  expect_invalid(PrimFunc("f", {A}, loop(i, 4, loop(i, 4, store))), "variable i is defined twice: it is already in scope");
}

TEST(Verify, BlocksSeeLoopsOnlyThroughIterValues) {
  Matmul m;
  expect_valid(m.valid());
  expect_invalid(m.make(m.i, {m.i, m.j, m.k}),
                 "loop variable i is used inside block C: a block sees loops only through its iter_values");
}

TEST(Verify, NestedBlocksSeeOuterIterVarsOnlyThroughIterValues) {
  Buffer A("A", kF32, {Expr(4), Expr(4)});
  Var i("i"), j("j"), vi("vi"), wi("wi"), wj("wj");
  auto make = [&](Expr row) {
    Stmt inner = block_realize({vi, j}, Expr(),
                               block({.name = "inner",
                                      .iter_vars = {spatial(wi, 4), spatial(wj, 4)},
                                      .body = buffer_store(A, Expr(1.0f), {row, wj})}));
    Stmt outer = block_realize({i}, Expr(), block({.name = "outer", .iter_vars = {spatial(vi, 4)}, .body = loop(j, 4, inner)}));
    return PrimFunc("nested", {A}, root(loop(i, 4, outer)));
  };
  expect_valid(make(wi));
  expect_invalid(make(vi), "iter var vi of block outer is used inside block inner");
}

TEST(Verify, IterValuesMatchIterVars) {
  Matmul m;
  expect_valid(m.valid());
  PrimFunc good = m.valid();
  // Rebuild the matmul's realize with one iter value missing.
  const auto* r = good.body().as<BlockRealizeNode>()->block.as<BlockNode>()->body.as<ForNode>()->body.as<ForNode>()->body.as<ForNode>()->body.as<BlockRealizeNode>();
  ASSERT_NE(r, nullptr);
  Stmt bad = raw<BlockRealizeNode>([&](BlockRealizeNode& n) {
    n.iter_values = {m.i, m.j};
    n.predicate = r->predicate;
    n.block = r->block;
  });
  expect_invalid(PrimFunc("bad", good.params(), root(loop(m.i, 4, loop(m.j, 4, loop(m.k, 4, bad))))),
                 "block C has 3 iter vars but 2 iter values");
}

TEST(Verify, NoReduce) {
  Buffer A("A", kF32, {Expr(4)}), B("B", kF32, {Expr(1)});
  Var k("k");
  expect_valid(PrimFunc("f", {A, B}, buffer_store(B, buffer_load(A, {Expr(0)}), {Expr(0)})));
  Expr sum = reduce(ReduceKind::kSum, buffer_load(A, {k}), {reduce_axis(k, 4)});
  expect_invalid(PrimFunc("f", {A, B}, buffer_store(B, sum, {Expr(0)})), "Reduce: reductions belong to compute definitions");
}

TEST(Verify, IndexCountMatchesRank) {
  Matmul m;
  expect_valid(m.valid());
  Buffer A("A", kF32, {Expr(4), Expr(4)});
  expect_invalid(PrimFunc("f", {A}, buffer_store(A, buffer_load(A, {Expr(1)}), {Expr(0), Expr(0)})),
                 "load from A has 1 indices, but A has 2 dimensions");
  expect_invalid(PrimFunc("f", {A}, raw<BufferStoreNode>([&](BufferStoreNode& n) {
                            n.buffer = A;
                            n.value = Expr(0.0f);
                            n.indices = {Expr(0), Expr(0), Expr(0)};
                          })),
                 "store to A has 3 indices");
}

TEST(Verify, StoredValueHasTheBufferType) {
  Buffer A("A", kF32, {Expr(4)});
  expect_valid(PrimFunc("f", {A}, buffer_store(A, Expr(2.0f), {Expr(0)})));
  expect_invalid(PrimFunc("f", {A}, raw<BufferStoreNode>([&](BufferStoreNode& n) {
                            n.buffer = A;
                            n.value = Expr(2);
                            n.indices = {Expr(0)};
                          })),
                 "store of int32 into A of float32");
  expect_invalid(PrimFunc("f", {A}, raw<BufferStoreNode>([&](BufferStoreNode& n) {
                            n.buffer = A;
                            n.value = broadcast(Expr(2.0f), 4);
                            n.indices = {Expr(0)};
                          })),
                 "store of float32x4 into A of float32 with 1-lane indices");
}

// An expression node built by hand, skipping its constructor's type rules.
template <typename N, typename F>
Expr raw_expr(DataType t, F&& fill) {
  auto n = std::make_shared<N>();
  n->dtype = t;
  fill(*n);
  return Expr(ObjectPtr(std::move(n)));
}

TEST(Verify, ExpressionsAreWellTyped) {
  Buffer A("A", kF32, {Expr(4)});
  Var i("i");
  auto store = [&](Expr value, Expr index = Expr(0)) {
    return PrimFunc("f", {A}, loop(i, 4, buffer_store(A, std::move(value), {std::move(index)})));
  };
  // Before: A[0] = A[i] + 1.0f, built by the constructors.
  expect_valid(store(buffer_load(A, {i}) + Expr(1.0f)));
  // float32 + int32: the constructor would have inserted a cast.
  Expr mixed = raw_expr<AddNode>(kF32, [&](AddNode& n) {
    n.a = buffer_load(A, {i});
    n.b = Expr(1);
  });
  expect_invalid(store(mixed), "ill-typed expression: operands of Add have different types float32 and int32");
  // A comparison typed as its operands instead of bool.
  Expr cmp = raw_expr<LTNode>(DataType::Int32(), [&](LTNode& n) {
    n.a = i;
    n.b = Expr(2);
  });
  expect_invalid(store(Expr(1.0f), cmp), "LT of int32 typed int32, not bool");
  // A select on an integer condition.
  Expr sel = raw_expr<SelectNode>(kF32, [&](SelectNode& n) {
    n.cond = i;
    n.true_value = Expr(1.0f);
    n.false_value = Expr(2.0f);
  });
  expect_invalid(store(sel), "select condition of type int32");
  // A load typed float64 from a float32 buffer.
  Expr load = raw_expr<BufferLoadNode>(DataType::Float(64), [&](BufferLoadNode& n) {
    n.buffer = A;
    n.indices = {i};
  });
  expect_invalid(PrimFunc("f", {A}, loop(i, 4, evaluate(load))), "load of float32 from A typed float64");
  // Checked inside indices, too: a float index.
  Expr findex = raw_expr<BufferLoadNode>(kF32, [&](BufferLoadNode& n) {
    n.buffer = A;
    n.indices = {Expr(1.0f)};
  });
  expect_invalid(store(findex), "index of A of type float32");
}

TEST(Verify, BuffersMustBeParamsOrAllocated) {
  Buffer A("A", kF32, {Expr(4)}), T("T", kF32, {Expr(4)});
  Var i("i"), vi("vi"), j("j"), wj("wj");
  Stmt produce = block_realize({i}, Expr(), block({.name = "T", .iter_vars = {spatial(vi, 4)},
                                                   .body = buffer_store(T, Expr(1.0f), {vi})}));
  Stmt consume = block_realize({j}, Expr(), block({.name = "A", .iter_vars = {spatial(wj, 4)},
                                                   .body = buffer_store(A, buffer_load(T, {wj}), {wj})}));
  Stmt body = seq({loop(i, 4, produce), loop(j, 4, consume)});
  expect_valid(PrimFunc("f", {A}, root(body, {T})));
  expect_invalid(PrimFunc("f", {A}, root(body)), "store to buffer T in block T, which is neither a parameter nor allocated");
  expect_valid(PrimFunc("f", {A}, allocate(T, loop(i, 4, buffer_store(T, Expr(1.0f), {i})))));
}

TEST(Verify, LoopBoundsAreIntegers) {
  Buffer A("A", kF32, {Expr(4)});
  Var i("i");
  Stmt store = buffer_store(A, Expr(0.0f), {i});
  expect_valid(PrimFunc("f", {A}, loop(i, 4, store)));
  expect_invalid(PrimFunc("f", {A}, raw<ForNode>([&](ForNode& n) {
                            n.loop_var = i;
                            n.min = Expr(0);
                            n.extent = Expr(4.0f);
                            n.body = store;
                          })),
                 "loop i has non-integer bounds");
}

TEST(Verify, ThreadBoundLoopsNameTheirThread) {
  Buffer A("A", kF32, {Expr(4)});
  Var i("i");
  Stmt store = buffer_store(A, Expr(0.0f), {i});
  expect_valid(PrimFunc("f", {A}, for_loop(i, Expr(0), Expr(4), ForKind::kThreadBinding, store, "threadIdx.x")));
  expect_invalid(PrimFunc("f", {A}, raw<ForNode>([&](ForNode& n) {
                            n.loop_var = i;
                            n.min = Expr(0);
                            n.extent = Expr(4);
                            n.for_kind = ForKind::kThreadBinding;
                            n.body = store;
                          })),
                 "thread-bound loop i has no thread tag");
}

// ---------------------------------------------------------------------------
// The lowered contract.

TEST(VerifyLowered, AcceptsFlatLoops) {
  Buffer A("A", kF32, {Expr(64)}), T("T", kF32, {Expr(8)}, "local");
  Var i("i"), j("j");
  Stmt inner = loop(j, 8, buffer_store(A, buffer_load(T, {j}), {i * 8 + j}));
  PrimFunc f("flat", {A},
             loop(i, 8, allocate(T, seq({buffer_store(T, broadcast(Expr(1.0f), 8), {ramp(Expr(0), Expr(1), 8)}), inner})),
                  ForKind::kParallel));
  auto e = verify_lowered_error(f);
  EXPECT_FALSE(e.has_value()) << *e;
  EXPECT_NO_THROW(verify_lowered(f));
}

TEST(VerifyLowered, RejectsBlocks) {
  Matmul m;
  auto e = verify_lowered_error(m.valid());
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(e->find("parameter A has 2 dimensions"), std::string::npos) << *e;
  Buffer A("A", kF32, {Expr(4)});
  Var i("i"), vi("vi");
  PrimFunc f("f", {A}, loop(i, 4, block_realize({i}, Expr(), block({.name = "B", .iter_vars = {spatial(vi, 4)},
                                                                    .body = buffer_store(A, Expr(0.0f), {vi})}))));
  e = verify_lowered_error(f);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(*e, "block B in lowered code: lowering turns blocks into loops");
  EXPECT_THROW(verify_lowered(f), Error);
}

TEST(VerifyLowered, RejectsMultiDimensionalAccess) {
  Buffer A("A", kF32, {Expr(4)}), T("T", kF32, {Expr(2), Expr(2)});
  PrimFunc f("f", {A}, allocate(T, buffer_store(A, buffer_load(T, {Expr(0), Expr(1)}), {Expr(0)})));
  auto e = verify_lowered_error(f);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(*e, "allocation of T has 2 dimensions: lowered buffers have one");
}

TEST(VerifyLowered, RejectsNarrowIndices) {
  Buffer A("A", kF32, {Expr(4)});
  Var i("i", DataType::Int(16));
  PrimFunc f("f", {A}, for_loop(i, Expr(0), Expr(4), ForKind::kSerial, buffer_store(A, Expr(0.0f), {i})));
  EXPECT_EQ(verify_lowered_error(f).value_or(""), "index of A has type int16: lowered indices are int32 or int64");
}

TEST(VerifyLowered, RejectsVectorizedAndNestedParallelLoops) {
  Buffer A("A", kF32, {Expr(16)});
  Var i("i"), j("j");
  Stmt store = buffer_store(A, Expr(0.0f), {i * 4 + j});
  EXPECT_EQ(verify_lowered_error(PrimFunc("f", {A}, loop(i, 4, loop(j, 4, store, ForKind::kVectorized)))).value_or(""),
            "vectorized loop j in lowered code: the vectorizer rewrites or serialises them");
  EXPECT_EQ(verify_lowered_error(PrimFunc("f", {A}, loop(i, 4, loop(j, 4, store, ForKind::kParallel), ForKind::kParallel)))
                .value_or(""),
            "parallel loop j is nested inside another parallel loop");
  EXPECT_FALSE(verify_lowered_error(PrimFunc("f", {A}, loop(i, 4, loop(j, 4, store), ForKind::kParallel))).has_value());
}

// Unrolling copies a loop body, so a loop variable may be bound again in a
// sibling copy of lowered code; the block form keeps the stricter rule.
TEST(VerifyLowered, AllowsSiblingCopiesOfALoop) {
  Buffer A("A", kF32, {Expr(8)});
  Var j("j");
  Stmt copy0 = loop(j, 4, buffer_store(A, Expr(0.0f), {j}));
  Stmt copy1 = loop(j, 4, buffer_store(A, Expr(1.0f), {j + 4}));
  PrimFunc f("unrolled", {A}, seq({copy0, copy1}));
  EXPECT_FALSE(verify_lowered_error(f).has_value());
  EXPECT_TRUE(verify_error(f).has_value());
}

}  // namespace
}  // namespace kiln
