// Access regions: interval arithmetic over indices, relaxation, and the
// block convention for reductions.
#include <gtest/gtest.h>

#include "te_test_util.h"
#include "tir/analysis/access_region.h"

namespace kiln {
namespace {

using test::const_range;
using test::point_range;

const DataType kF32 = DataType::Float32();

IterVar iv(const Var& v, int64_t min, int64_t extent, IterType t = IterType::kSpatial) {
  return IterVar(v, Range(Expr(static_cast<int>(min)), Expr(static_cast<int>(extent))), t);
}

Stmt store(const Buffer& b, Expr value, std::vector<Expr> idx) { return buffer_store(b, std::move(value), std::move(idx)); }
Expr load(const Buffer& b, std::vector<Expr> idx) { return buffer_load(b, std::move(idx)); }

TEST(AccessRegion, FixedVariablesGivePointRegions) {
  Buffer A("A", kF32, {Expr(8), Expr(8)}), B("B", kF32, {Expr(8)});
  Var i("i"), j("j");
  auto [reads, writes] = detect_access_regions(store(B, load(A, {i, j + 1}), {i}));
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_TRUE(point_range(reads[0]->region[0], i));
  EXPECT_TRUE(is_const_int(reads[0]->region[1]->extent, 1));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(writes[0].buffer().same_as(B));
  EXPECT_TRUE(point_range(writes[0]->region[0], i));
}

TEST(AccessRegion, RelaxedVariablesCoverTheirDomains) {
  Buffer A("A", kF32, {Expr(16), Expr(12)}), C("C", kF32, {Expr(16)});
  Var i("i"), k("k");
  Stmt s = store(C, load(C, {i}) + load(A, {i, k}), {i});
  auto [reads, writes] = detect_access_regions(s, {iv(i, 0, 16), iv(k, 2, 5, IterType::kReduce)});
  ASSERT_EQ(reads.size(), 2u);
  // The update reads its accumulator: listed, first as it comes first.
  EXPECT_TRUE(reads[0].buffer().same_as(C));
  EXPECT_TRUE(const_range(reads[0]->region[0], 0, 16));
  EXPECT_TRUE(reads[1].buffer().same_as(A));
  EXPECT_TRUE(const_range(reads[1]->region[0], 0, 16));
  EXPECT_TRUE(const_range(reads[1]->region[1], 2, 5));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(const_range(writes[0]->region[0], 0, 16));
}

TEST(AccessRegion, AffineIndexWithFixedAndRelaxedParts) {
  // A[vo * 4 + vi * 2 - 1] with vi in [0, 3): [vo * 4 - 1, vo * 4 + 3], extent 5.
  Buffer A("A", kF32, {Expr(64)}), B("B", kF32, {Expr(16)});
  Var vo("vo"), vi("vi");
  Stmt s = store(B, load(A, {vo * 4 + vi * 2 - 1}), {vo});
  auto [reads, writes] = detect_access_regions(s, {iv(vi, 0, 3)});
  ASSERT_EQ(reads.size(), 1u);
  const Range& r = reads[0]->region[0];
  EXPECT_TRUE(is_const_int(r->extent, 5));
  // min is vo * 4 - 1
  const auto* sub = r->min.as<SubNode>();
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(is_const_int(sub->b, 1));
  const auto* mul = sub->a.as<MulNode>();
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(mul->a.same_as(vo));
  EXPECT_TRUE(is_const_int(mul->b, 4));
}

TEST(AccessRegion, NegativeCoefficientSwapsBounds) {
  Buffer A("A", kF32, {Expr(10)}), B("B", kF32, {Expr(1)});
  Var k("k");
  auto [reads, writes] = detect_access_regions(store(B, load(A, {Expr(9) - k}), {Expr(0)}), {iv(k, 0, 4)});
  EXPECT_TRUE(const_range(reads[0]->region[0], 6, 4));
  EXPECT_TRUE(const_range(writes[0]->region[0], 0, 1));
}

TEST(AccessRegion, SeveralAccessesMergeIntoTheirHull) {
  Buffer A("A", kF32, {Expr(32)}), B("B", kF32, {Expr(32)});
  Var v("v");
  Stmt s = store(B, load(A, {v}) + load(A, {v + 2}) + load(A, {v - 1}), {v});
  auto [reads, writes] = detect_access_regions(s);
  ASSERT_EQ(reads.size(), 1u);
  const Range& r = reads[0]->region[0];
  EXPECT_TRUE(is_const_int(r->extent, 4));
  const auto* sub = r->min.as<SubNode>();
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(sub->a.same_as(v));
}

TEST(AccessRegion, DifferentFixedVariablesFallBackToTheWholeDimension) {
  // A[i] and A[j]: neither bounds the other.
  Buffer A("A", kF32, {Expr(32)}), B("B", kF32, {Expr(32)});
  Var i("i"), j("j");
  auto [reads, writes] = detect_access_regions(store(B, load(A, {i}) + load(A, {j}), {i}));
  EXPECT_TRUE(const_range(reads[0]->region[0], 0, 32));
}

TEST(AccessRegion, DivisionAndModuloOfAFusedIndex) {
  // A fused loop f over 12 elements of a 3 x 4 buffer.
  Buffer A("A", kF32, {Expr(3), Expr(4)}), B("B", kF32, {Expr(12)});
  Var f("f");
  Stmt s = store(B, load(A, {floordiv(f, Expr(4)), floormod(f, Expr(4))}), {f});
  auto [reads, writes] = detect_access_regions(s, {iv(f, 4, 4)});
  EXPECT_TRUE(const_range(reads[0]->region[0], 1, 1));
  EXPECT_TRUE(const_range(reads[0]->region[1], 0, 4));
  auto [reads2, writes2] = detect_access_regions(s, {iv(f, 5, 2)});
  EXPECT_TRUE(const_range(reads2[0]->region[1], 1, 2));
}

TEST(AccessRegion, DivisionOfATileIndexByItsTileSize) {
  // A[(jo * 4 + ji) // 4, (jo * 4 + ji) % 4] over ji < 4 is row jo, whole: a
  // panel of a packed buffer, one per iteration of jo.
  Buffer A("A", kF32, {Expr(3), Expr(4)}), B("B", kF32, {Expr(12)});
  Var jo("jo"), ji("ji");
  Expr j = jo * 4 + ji;
  Stmt s = store(B, load(A, {floordiv(j, Expr(4)), floormod(j, Expr(4))}), {j});
  auto [reads, writes] = detect_access_regions(s, {iv(ji, 0, 4)});
  EXPECT_TRUE(point_range(reads[0]->region[0], jo));
  EXPECT_TRUE(const_range(reads[0]->region[1], 0, 4));
  // Two of the four: still one row, and the remainder knows which columns.
  auto [reads2, writes2] = detect_access_regions(s, {iv(ji, 1, 2)});
  EXPECT_TRUE(point_range(reads2[0]->region[0], jo));
  EXPECT_TRUE(const_range(reads2[0]->region[1], 1, 2));
  // A tile that straddles rows covers two of them.
  Stmt t = store(B, load(A, {floordiv(j + 2, Expr(4)), Expr(0)}), {j});
  auto [reads3, writes3] = detect_access_regions(t, {iv(ji, 0, 4)});
  EXPECT_TRUE(is_const_int(reads3[0]->region[0]->extent, 2));
}

TEST(AccessRegion, ClampedIndexStaysInsideTheBuffer) {
  Buffer A("A", kF32, {Expr(10)}), P("P", kF32, {Expr(12)});
  Var h("h");
  Expr clamped = min(max(h - 1, Expr(0)), Expr(9));
  Stmt s = store(P, select(h >= Expr(1) && h < Expr(11), load(A, {clamped}), Expr(0.0f)), {h});
  auto [reads, writes] = detect_access_regions(s, {iv(h, 0, 12)});
  EXPECT_TRUE(const_range(reads[0]->region[0], 0, 10));
  // Held fixed, the same index is one element at the clamped position.
  auto [reads_fixed, w] = detect_access_regions(s);
  EXPECT_TRUE(is_const_int(reads_fixed[0]->region[0]->extent, 1));
  EXPECT_TRUE(reads_fixed[0]->region[0]->min.same_as(clamped));
}

TEST(AccessRegion, DataDependentIndexCoversTheWholeDimension) {
  Buffer A("A", kF32, {Expr(20)}), Idx("Idx", DataType::Int32(), {Expr(5)}), B("B", kF32, {Expr(5)});
  Var k("k");
  Stmt s = store(B, load(A, {load(Idx, {k})}), {k});
  auto [reads, writes] = detect_access_regions(s, {iv(k, 0, 5)});
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_TRUE(reads[0].buffer().same_as(A));
  EXPECT_TRUE(const_range(reads[0]->region[0], 0, 20));
  EXPECT_TRUE(reads[1].buffer().same_as(Idx));
  EXPECT_TRUE(const_range(reads[1]->region[0], 0, 5));
}

TEST(AccessRegion, LoopsInsideTheCodeAreRelaxed) {
  Buffer A("A", kF32, {Expr(4), Expr(8)}), B("B", kF32, {Expr(4)});
  Var i("i"), k("k");
  Stmt s = for_loop(k, Expr(0), Expr(8), ForKind::kSerial, store(B, load(B, {i}) + load(A, {i, k}), {i}));
  auto [reads, writes] = detect_access_regions(s);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_TRUE(reads[1].buffer().same_as(A));
  EXPECT_TRUE(point_range(reads[1]->region[0], i));
  EXPECT_TRUE(const_range(reads[1]->region[1], 0, 8));
}

TEST(AccessRegion, SymbolicDomainGivesSymbolicExtent) {
  Var n("n");
  Buffer A("A", kF32, {n}), B("B", kF32, {Expr(1)});
  Var k("k");
  Stmt s = store(B, load(A, {k}), {Expr(0)});
  auto [reads, writes] = detect_access_regions(s, {IterVar(k, Range(Expr(0), n), IterType::kReduce)});
  EXPECT_TRUE(is_const_int(reads[0]->region[0]->min, 0));
  EXPECT_TRUE(reads[0]->region[0]->extent.same_as(n));
}

TEST(AccessRegion, NestedBlockContributesItsRecordedRegions) {
  // for i in [0, 4): block(vi = i * 2) reads A[vi : vi + 2].
  Buffer A("A", kF32, {Expr(16)}), B("B", kF32, {Expr(8)});
  Var i("i"), vi("vi");
  Stmt inner = block({.name = "inner",
                      .iter_vars = {iv(vi, 0, 8)},
                      .reads = {BufferRegion(A, {Range(vi, Expr(2))})},
                      .writes = {BufferRegion(B, {Range(vi, Expr(1))})},
                      .body = store(B, load(A, {vi}) + load(A, {vi + 1}), {vi})});
  Stmt s = for_loop(i, Expr(0), Expr(4), ForKind::kSerial, block_realize({i * 2}, Expr(), inner));
  auto [reads, writes] = detect_access_regions(s);
  EXPECT_TRUE(const_range(reads[0]->region[0], 0, 8));
  EXPECT_TRUE(const_range(writes[0]->region[0], 0, 7));
}

TEST(AccessRegion, BlockAllocationsAreNotAccessesOfTheBlock) {
  Buffer A("A", kF32, {Expr(4)}), T("T", kF32, {Expr(4)}), B("B", kF32, {Expr(4)});
  Var vi("vi");
  Stmt b = block({.name = "b",
                  .iter_vars = {iv(vi, 0, 4)},
                  .body = seq({store(T, load(A, {vi}), {vi}), store(B, load(T, {vi}), {vi})}),
                  .alloc_buffers = {T}});
  auto [reads, writes] = block_access_regions(b);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_TRUE(reads[0].buffer().same_as(A));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(writes[0].buffer().same_as(B));
}

TEST(AccessRegion, BlockWithInitDoesNotListItsAccumulatorAsARead) {
  Buffer A("A", kF32, {Expr(4), Expr(6)}), C("C", kF32, {Expr(4)});
  Var vi("vi"), vk("vk");
  Stmt update = store(C, load(C, {vi}) + load(A, {vi, vk}), {vi});
  BlockFields f{.name = "C", .iter_vars = {iv(vi, 0, 4), iv(vk, 0, 6, IterType::kReduce)}, .body = update};
  // Without an init (e.g. after decompose_reduction) the accumulator is read.
  auto [reads_no_init, w1] = block_access_regions(block(f));
  ASSERT_EQ(reads_no_init.size(), 2u);
  EXPECT_TRUE(reads_no_init[0].buffer().same_as(C));
  f.init = store(C, Expr(0.0f), {vi});
  auto [reads, writes] = block_access_regions(block(f));
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_TRUE(reads[0].buffer().same_as(A));
  EXPECT_TRUE(point_range(reads[0]->region[1], vk));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(point_range(writes[0]->region[0], vi));
}

TEST(AccessRegion, LetBoundIndexIsFollowed) {
  Buffer A("A", kF32, {Expr(16)}), B("B", kF32, {Expr(1)});
  Var k("k"), t("t");
  Stmt s = let_stmt(t, k * 2, store(B, load(A, {t + 1}), {Expr(0)}));
  auto [reads, writes] = detect_access_regions(s, {iv(k, 0, 4)});
  EXPECT_TRUE(const_range(reads[0]->region[0], 1, 7));
}

}  // namespace
}  // namespace kiln
