// Designs with register tiles sized from the target: on AVX2, BLIS's
// 6 x 16 kernel for matmul 1024³, which no perfect tile of 1024 makes;
// every such design fits its registers and computes the right thing.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "ops/workload.h"
#include "search/block_info.h"
#include "search/register_designs.h"
#include "search/register_tile.h"
#include "search/sample.h"
#include "search/space.h"
#include "support/kernel_check.h"
#include "tir/functor.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/split_prepack.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

SpaceParams avx2() { return SpaceParams::for_target(Target::parse("llvm -mcpu=haswell -num-cores=2")); }

// The S3 factors of a design's first tiled block, in loop order.
std::vector<int64_t> register_tile_of(const Trace& design) {
  std::vector<int64_t> out;
  const std::vector<RegisterTile> tiles = register_tiles(design);
  for (size_t i : tiles.at(0).tiles)
    out.push_back(tile_factors(design.instructions()[i])->at(3));
  return out;
}

// The factors a design draws at tile sample `i`; empty where it draws none.
std::vector<int64_t> factors_of(const Trace& design, size_t i) {
  const std::vector<int64_t>* f = tile_factors(design.instructions()[i]);
  return f ? *f : std::vector<int64_t>{};
}

// The extents of the (up to) `n` loops innermost around `block` in `f`.
std::vector<int64_t> innermost_extents(const PrimFunc& f, const std::string& block, size_t n) {
  const std::vector<Stmt> loops = enclosing_loops(*locate_block(f.body(), block));
  std::vector<int64_t> out;
  for (size_t i = loops.size() - std::min(n, loops.size()); i < loops.size(); ++i)
    out.push_back(*as_const_int(loops[i].as<ForNode>()->extent));
  return out;
}

// The register tiles of up to 64 designs of workload `w` on AVX2.
std::set<std::vector<int64_t>> register_tile_shapes(const std::string& w) {
  PrimFunc f = workload(w);
  std::set<std::vector<int64_t>> shapes;
  for (const Trace& d : register_designs(f, design_space(f, avx2()), 1, 64)) shapes.insert(register_tile_of(d));
  return shapes;
}

// An int8 product tiled for VNNI's dot product: a step of the tile's
// vector axis is one 16-lane panel, one register, so the designs fill the
// 28 accumulators with rows of panels (before the tiling said so, they
// counted each panel as 16 lanes and none fit).
TEST(RegisterDesigns, AnInt8ProductCountsItsIntrinsicPanelsAsRegisters) {
  PrimFunc f = workload("matmul_u8s8s32:M=1024,N=1024,K=1024");
  const SpaceParams vnni = SpaceParams::for_target(Target::parse("llvm -mcpu=sapphirerapids -num-cores=2"));
  std::vector<Trace> designs = register_designs(f, design_space(f, vnni), 1, 24);
  ASSERT_GE(designs.size(), 4u);
  int64_t most = 0;
  for (const Trace& d : designs)
    for (const RegisterTile& t : register_tiles(d)) {
      EXPECT_LE(registers_of(d, t), 28) << d.str();
      most = std::max(most, registers_of(d, t));
    }
  EXPECT_GE(most, 16);
}

TEST(RegisterDesigns, Matmul1024OnAvx2GetsSixRowsOfTwoVectors) {
  PrimFunc f = workload("matmul:M=1024,N=1024,K=1024");
  std::vector<Trace> designs = register_designs(f, design_space(f, avx2()), 1, 24);
  ASSERT_GE(designs.size(), 12u);
  std::set<std::vector<int64_t>> shapes;
  for (const Trace& d : designs) {
    for (const RegisterTile& t : register_tiles(d)) EXPECT_LE(registers_of(d, t), 12) << d.str();
    shapes.insert(register_tile_of(d));
  }
  // Before: a perfect tile of 1024 rows fills at most 8 of the 12 ymm.
  // After: 6 x 16 (12 ymm), 12 x 8, 4 x 24 cannot (24 does not divide
  // 1024: the vector tile stays perfect, 8), and 2 x 32: 3 x 32 would keep
  // 12 accumulators beside its 4 loaded vectors and a broadcast, 17 of the
  // 16 registers.
  EXPECT_TRUE(shapes.count({6, 16})) << "rows x columns";
  EXPECT_TRUE(shapes.count({12, 8}));
  EXPECT_TRUE(shapes.count({2, 32}));
  EXPECT_FALSE(shapes.count({3, 32}));
  // The first are the two-vector ones, one per sketch.
  EXPECT_EQ(register_tile_of(designs[0]), (std::vector<int64_t>{6, 16}));
  // Their rows cover the 1024 rows with 171 tiles of 6 (1026 rows), however
  // far past 1024 the drawn tile went: rows past the extent are work.
  const std::vector<RegisterTile> tiles = register_tiles(designs[0]);
  EXPECT_EQ(*tile_factors(designs[0].instructions()[tiles.at(0).tiles[0]]), (std::vector<int64_t>{1, 171, 1, 6}));
  // And the reduction runs in one loop around the register tile.
  ASSERT_EQ(tiles[0].reductions.size(), 1u);
  EXPECT_EQ(*tile_factors(designs[0].instructions()[tiles[0].reductions[0]]), (std::vector<int64_t>{1024, 1}));
}

TEST(RegisterDesigns, FourVectorsPerRowLeaveRoomForTheirOperandsOnAvx512) {
  // AVX-512: 32 zmm, 28 for accumulators. Before: 7 x 64 (28 accumulators,
  // its 4 loaded vectors and a broadcast 33 registers, spilling). After:
  // 6 x 64, the hand schedule's tile; two vectors keep 14 rows.
  PrimFunc f = workload("matmul:M=1024,N=1024,K=1024");
  std::set<std::vector<int64_t>> shapes;
  for (const Trace& d : register_designs(f, design_space(f, SpaceParams::for_target(Target::parse(
                                                                "llvm -mcpu=znver4 -num-cores=2"))),
                                         1, 24))
    shapes.insert(register_tile_of(d));
  EXPECT_TRUE(shapes.count({6, 64}));
  EXPECT_FALSE(shapes.count({7, 64}));
  EXPECT_TRUE(shapes.count({14, 32}));
}

TEST(RegisterDesigns, SevenWideRowsMakeOneVectorOfSevenLanesAndRowsMaySplitBetweenTwoAxes) {
  // conv2d with 7-wide output rows on AVX2 (8 lanes): before, the vector
  // tile was mended from 8 or 16 to gcd(8, 7) = 1, no vector at all.
  // After: 7 lanes. And besides 6 output channels per tile, 4 channels x 3
  // output rows (loop order n, k, p, q).
  const auto shapes = register_tile_shapes("conv2d_nchw:N=1,C=8,H=7,W=7,K=32,R=3,S=3,stride=1,pad=1");
  EXPECT_TRUE(shapes.count({1, 6, 1, 7}));
  EXPECT_TRUE(shapes.count({1, 4, 3, 7}));
  EXPECT_FALSE(shapes.count({1, 6, 1, 1}));
}

TEST(RegisterDesigns, FiftySixWideRowsOnAvx512MakeVectorsOfEightLanes) {
  // conv2d 56² on AVX-512 (16 lanes), vectorized over output columns.
  // Before: vectors of 14 lanes, the widest divisor of 56 up to 16, which
  // LLVM splits into 8 + 4 + 2. After: 8 lanes, a 256-bit half that fills
  // its register; and 4 output channels x 4 output rows beside them
  // (loop order n, k, p, q).
  PrimFunc f = workload("conv2d_nchw:N=1,C=8,H=56,W=56,K=16,R=3,S=3,stride=1,pad=1");
  const SpaceParams avx512 = SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"));
  ASSERT_EQ(avx512.lanes, 16);
  std::set<std::vector<int64_t>> shapes;
  for (const Trace& d : register_designs(f, design_space(f, avx512), 1, 64)) shapes.insert(register_tile_of(d));
  EXPECT_TRUE(shapes.count({1, 4, 4, 8}));
  for (const std::vector<int64_t>& s : shapes) EXPECT_NE(s[3], 14);
}

TEST(RegisterDesigns, RowsAreAsEvenAsTheAxisAllowsAndNeverTallerThanIt) {
  // The output-channel vector (the weights packed, kiln.vector_axis) over
  // 7-high output rows. Before: 1 vector x 12 rows, two tiles covering 14
  // rows, half of them empty; 2 vectors x 6 rows as 6 + 1. After: 7 rows
  // in one tile; 4 + 3. (Loop order n, k, p, q.)
  const auto shapes = register_tile_shapes("conv2d_nchw:N=1,C=8,H=7,W=7,K=32,R=3,S=3,stride=1,pad=1");
  EXPECT_TRUE(shapes.count({1, 8, 7, 1}));
  EXPECT_TRUE(shapes.count({1, 16, 4, 1}));
  for (const std::vector<int64_t>& s : shapes) {
    EXPECT_LE(s[2], 7);
    EXPECT_LE(s[3], 7);
  }
}

TEST(RegisterDesigns, AWindowShapeComesAgainWithItsPaddingInlined) {
  // Before: every window shape of a depthwise convolution copied its
  // padded input per tile. After: each also comes with the padding
  // inlined into its loads (no pad block), which partition_loops takes out
  // of the interior tiles; those compute what the definition does, in the
  // interpreter and compiled (the border tiles and the interior ones).
  PrimFunc f = workload("depthwise_conv2d_nchwc:N=1,C=32,H=14,W=14,R=3,S=3,stride=1,pad=1,b=16");
  int copied = 0, inlined = 0;
  for (const Trace& d : register_designs(f, design_space(f, avx2()), 1, 64)) {
    const PrimFunc s = apply_trace(d, f).func();
    const bool copies = locate_block(s.body(), "pad").has_value();
    (copies ? copied : inlined) += 1;
    if (copies) continue;
    const std::optional<Candidate> c = replay_candidate(f, d);
    ASSERT_TRUE(c) << d.str();
    testing::expect_same_results(f, c->func);
  }
  EXPECT_GT(copied, 0);
  EXPECT_GT(inlined, 0);
}

TEST(RegisterDesigns, APackedPanelGoesUnderItsPanelLoopAndThePaddedInputToTheRoot) {
  // conv2d vectorized over output channels: loops k, n, p, q outermost (S0).
  // Before: the packed weights and the padded input both under the last S0
  // loop (q), computed again for every row and column tile. After: the
  // weights' panel under k's S0 loop, once per panel; the padded input,
  // which no output-channel panel changes, at the root, once.
  PrimFunc f = workload("conv2d_nchw:N=1,C=16,H=7,W=7,K=32,R=3,S=3,stride=1,pad=1");
  int checked = 0;
  for (const Trace& d : register_designs(f, design_space(f, avx2()), 1, 64)) {
    const PrimFunc s = apply_trace(d, f).func();
    std::optional<Located> weights = locate_block(s.body(), "kernel_global");
    if (!weights) continue;  // vectorized over output columns: nothing packed
    std::optional<Located> pad = locate_block(s.body(), "pad");
    if (!pad) continue;  // a window shape with its padding inlined (the next test)
    // The loops above each, outermost first: the consumer's S0 loops are
    // i1_0 (k), i0_0 (n), i2_0 (p), i3_0 (q), the output channels' first
    // because the weights outweigh the input here (multi_level_tiling
    // puts first the tile whose split splits the most of what is read),
    // then the producer's own.
    auto names = [](const Located& l) {
      std::vector<std::string> out;
      for (const Stmt& loop : enclosing_loops(l)) out.push_back(loop.as<ForNode>()->loop_var->name);
      return out;
    };
    const std::vector<std::string> above_pad = names(*pad), above_weights = names(*weights);
    EXPECT_EQ(std::count(above_pad.begin(), above_pad.end(), "i0_0"), 0) << d.str();
    // One panel of all the output channels is packed once, at the root.
    const std::vector<RegisterTile> tiles = register_tiles(d);
    const int64_t panels = tile_factors(d.instructions()[tiles.at(0).tiles.at(1)])->at(0);
    if (panels == 1) {
      EXPECT_EQ(std::count(above_weights.begin(), above_weights.end(), "i0_0"), 0) << d.str();
      continue;
    }
    ASSERT_GE(above_weights.size(), 2u) << d.str();
    EXPECT_EQ(above_weights[0], "i1_0") << d.str();
    EXPECT_NE(above_weights[1], "i0_0") << d.str();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// dense's weights named a constant (a model's): where a design packs them,
// the copy goes to the root, not under its panel loop, and postprocessing
// lays it out in the tiles' order and marks it as the weights' pack, which
// a compiled model runs at compile time. The input is no constant: its
// padding stays where it was.
TEST(RegisterDesigns, AConstantsPackGoesToTheRootAsAPrepack) {
  PrimFunc f = workload("matmul:M=64,N=256,K=128");
  int packed = 0;
  for (const Trace& d : register_designs(f, design_space(f, avx2()), 1, 64, /*constants=*/{1})) {
    const std::optional<Candidate> c = replay_candidate(f, d);
    ASSERT_TRUE(c) << d.str();
    std::optional<Located> copy = locate_block(c->func.body(), "B_global");
    if (!copy) continue;
    ++packed;
    EXPECT_EQ(child_block_realizes(top_of_nest(*copy)).size(), 1u) << "under the consumer's loops: " << d.str();
    const BlockNode* b = block_of(copy->stmt);
    EXPECT_TRUE(b->annotations.count(kPrepackAnn)) << d.str();
    EXPECT_GT(b->writes[0].buffer().shape().size(), 2u) << "laid out in the tiles' digits: " << d.str();
  }
  EXPECT_GT(packed, 0);
  // Without constants the same sketches pack per panel, under the tiles.
  int per_panel = 0;
  for (const Trace& d : register_designs(f, design_space(f, avx2()), 1, 64)) {
    const std::optional<Candidate> c = replay_candidate(f, d);
    ASSERT_TRUE(c);
    std::optional<Located> copy = locate_block(c->func.body(), "B_global");
    if (copy && child_block_realizes(top_of_nest(*copy)).size() > 1) ++per_panel;
  }
  EXPECT_EQ(per_panel, packed);
}

TEST(RegisterDesigns, TheFilterRowsSlideAlongTheOutputRows) {
  // conv2d's input is read at (h + ry, w + rx): ry slides along h, rx
  // along w; the channel reduction rc slides along nothing.
  PrimFunc f = workload("conv2d_nchw:N=1,C=8,H=16,W=16,K=16,R=3,S=3,stride=1,pad=1");
  // Iter vars n, k, h, w, rc, ry, rx.
  EXPECT_EQ(sliding_along(f, "conv2d_nchw"), (std::vector<int>{-1, -1, -1, -1, -1, 2, 3}));
  PrimFunc mm = workload("matmul:M=16,N=16,K=16");
  EXPECT_EQ(sliding_along(mm, blocks_in_order(mm).at(0)), (std::vector<int>{-1, -1, -1}));
}

TEST(RegisterDesigns, AWindowShapeHasRowsTheFilterSlidesOverAndItsPaddingPerTile) {
  // conv2d vectorized over output columns (loops n, k, h, w; rc, ry, rx).
  // Before: the rows of every design on the output channels, or split
  // with a few output rows, all in S1, and every reduction outside the
  // register tile: each filter row loaded the input rows again. After: the
  // first designs are window shapes: 4 output rows (in S0, run in
  // parallel), 2 output channels with all 16 in S1 inside each job, the
  // filter rows (ry) inside the register tile, so that 6 input rows serve
  // 3 x 4 steps, and the padded input computed per tile, under the S0 loops.
  PrimFunc f = workload("conv2d_nchw:N=1,C=8,H=16,W=16,K=16,R=3,S=3,stride=1,pad=1");
  std::vector<Trace> designs = register_designs(f, design_space(f, avx2()), 1, 16);
  std::optional<size_t> found;
  for (size_t d = 0; d < designs.size() && !found; ++d)
    if (register_tile_of(designs[d]) == std::vector<int64_t>{1, 2, 4, 8}) found = d;
  ASSERT_TRUE(found);
  EXPECT_LT(*found, 4u) << "window shapes come first";
  const Trace& d = designs[*found];
  const RegisterTile tile = register_tiles(d).at(0);
  auto factors = [&](size_t i) { return factors_of(d, i); };
  EXPECT_EQ(factors(tile.tiles[1]), (std::vector<int64_t>{1, 8, 1, 2})) << "k";
  EXPECT_EQ(factors(tile.tiles[2]), (std::vector<int64_t>{4, 1, 1, 4})) << "h";
  EXPECT_EQ(factors(tile.tiles[3]), (std::vector<int64_t>{2, 1, 1, 8})) << "w";
  ASSERT_EQ(tile.reductions.size(), 3u);
  EXPECT_EQ(factors(tile.reductions[0]), (std::vector<int64_t>{8, 1})) << "rc";
  EXPECT_EQ(factors(tile.reductions[1]), (std::vector<int64_t>{1, 3})) << "ry, along h's rows";
  EXPECT_EQ(factors(tile.reductions[2]), (std::vector<int64_t>{3, 1})) << "rx, along the vector";
  const PrimFunc s = apply_trace(d, f).func();
  std::optional<Located> pad = locate_block(s.body(), "pad");
  ASSERT_TRUE(pad);
  std::vector<std::string> above;
  for (const Stmt& loop : enclosing_loops(*pad)) above.push_back(loop.as<ForNode>()->loop_var->name);
  EXPECT_EQ(std::count(above.begin(), above.end(), "i2_0"), 1) << d.str();
  EXPECT_EQ(std::count(above.begin(), above.end(), "i3_0"), 1) << d.str();
}

TEST(RegisterDesigns, AConvolutionAlsoGetsDesignsWhoseRowTilesShareEachChunkOfWeights) {
  // Blocked conv2d, loops n, k-blocks, h, w, k-lanes; rc-blocks, ry, rx, rc.
  // Before: every design ran the whole reduction once per register tile
  // of rows, reading all the weights again. After: some put the output
  // rows' tiles in S2, inside the outer reduction loops, the k-blocks
  // split between S0 and S1, 2 steps of the rc-blocks inside; and they
  // compute the same.
  PrimFunc f = workload("conv2d_nchwc:N=1,C=32,H=7,W=7,K=128,R=3,S=3,stride=1,pad=1,cb=16,kb=16");
  SpaceParams zen4 = SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"));
  std::vector<Trace> designs = register_designs(f, design_space(f, zen4), 1, 16);
  // The S2 and S3 factors of a design's tile sample i; {0, 0} for none.
  auto s2_s3 = [](const Trace& t, size_t i) {
    const std::vector<int64_t>* f = tile_factors(t.instructions()[i]);
    return f && f->size() == 4 ? std::pair<int64_t, int64_t>{(*f)[2], (*f)[3]} : std::pair<int64_t, int64_t>{0, 0};
  };
  std::optional<size_t> found;
  for (size_t d = 0; d < designs.size() && !found; ++d) {
    const RegisterTile tile = register_tiles(designs[d]).at(0);
    if (tile.tiles.size() == 5 && s2_s3(designs[d], tile.tiles[2]).first > 1 &&
        s2_s3(designs[d], tile.tiles[1]).second == 2)
      found = d;
  }
  ASSERT_TRUE(found) << "no design with the output rows' tiles in S2";
  const Trace& d = designs[*found];
  const RegisterTile tile = register_tiles(d).at(0);
  auto factors = [&](size_t i) { return factors_of(d, i); };
  EXPECT_EQ(factors(tile.tiles[2]), (std::vector<int64_t>{1, 1, 3, 3})) << "h: 3 tiles of 3 rows in S2";
  EXPECT_EQ(factors(tile.tiles[1]), (std::vector<int64_t>{1, 4, 1, 2})) << "k-blocks: 2 rows, their tiles in S1";
  ASSERT_EQ(tile.reductions.size(), 4u);
  EXPECT_EQ(factors(tile.reductions[0]), (std::vector<int64_t>{1, 2})) << "rc-blocks: 2 steps inside";
  EXPECT_EQ(factors(tile.reductions[1]), (std::vector<int64_t>{1, 3})) << "ry, along h's rows";
  SampleFailure why;
  std::optional<Candidate> c = replay_candidate(f, d, &why);
  ASSERT_TRUE(c) << why.name() << ": " << why.message;
  testing::expect_same_results(f, c->func);

  PrimFunc mm = workload("matmul:M=64,N=64,K=64");
  for (const Trace& m : register_designs(mm, design_space(mm, zen4), 1, 16)) {
    const std::vector<RegisterTile> tiles = register_tiles(m);
    for (size_t i : tiles.at(0).tiles) EXPECT_LE(s2_s3(m, i).first, 1) << "a matmul slides along nothing: " << m.str();
  }
}

TEST(RegisterDesigns, AOneByOneConvolutionsDeepReductionRunsInChunksAroundItsPixels) {
  // Blocked 1x1 conv2d, loops n, k-blocks, h, w, k-lanes; rc-blocks, ry,
  // rx, rc. Its weights leave the output pixels out, and a 1x1 window
  // slides over nothing. Before: the streaming designs put 3 output rows
  // of 3 in S2 with 2 steps of the rc-blocks inside, the weights read once
  // per row tile. After: the reduction runs in chunks of 64 channels (4
  // blocks x 16) outside all 49 pixels' tiles (7 rows in S2, the columns
  // in the register tile) of 2 or 4 k-blocks, each once on the sketch that
  // packs the weights and once on one that reads them where they lie; the
  // same results.
  PrimFunc f = workload("conv2d_nchwc:N=1,C=512,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  SpaceParams zen4 = SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"));
  int packed = 0, unpacked = 0;
  for (const Trace& d : register_designs(f, design_space(f, zen4), 1, 16)) {
    const RegisterTile tile = register_tiles(d).at(0);
    ASSERT_EQ(tile.tiles.size(), 5u);
    ASSERT_EQ(tile.reductions.size(), 4u);
    if (factors_of(d, tile.reductions[0]) != std::vector<int64_t>{8, 4}) continue;
    EXPECT_EQ(factors_of(d, tile.reductions[3]), (std::vector<int64_t>{1, 16})) << "rc: whole, inside";
    EXPECT_EQ(factors_of(d, tile.tiles[2]), (std::vector<int64_t>{1, 1, 7, 1})) << "h: 7 rows in S2";
    // 2 k-blocks x 7 columns, or 4 x 4 (7 columns as 4 + 3).
    const std::vector<int64_t> k = factors_of(d, tile.tiles[1]), w = factors_of(d, tile.tiles[3]);
    if (k.at(3) == 2) {
      EXPECT_EQ(k, (std::vector<int64_t>{1, 2, 1, 2})) << "k-blocks: 2 rows, their 2 tiles in S1";
      EXPECT_EQ(w, (std::vector<int64_t>{1, 1, 1, 7})) << "w: 7 in the register tile";
    } else {
      EXPECT_EQ(k, (std::vector<int64_t>{1, 1, 1, 4})) << "k-blocks: 4 rows";
      EXPECT_EQ(w, (std::vector<int64_t>{1, 1, 2, 4})) << "w: 2 tiles of 4 in S2";
    }
    SampleFailure why;
    std::optional<Candidate> c = replay_candidate(f, d, &why);
    ASSERT_TRUE(c) << why.name() << ": " << why.message;
    testing::expect_same_results(f, c->func);
    (locate_block(c->func.body(), "kernel_global") ? packed : unpacked)++;
  }
  EXPECT_EQ(packed, 2);
  EXPECT_EQ(unpacked, 2);

  // 160 channels (mobilenet_v2's 160->960 at 7²) are two chunks and a
  // half: the chunk is what divides them, 2 blocks x 16 channels, 5 steps.
  // Before: only a reduction of four chunks (256 channels) got these
  // designs, and this one none.
  PrimFunc mid = workload("conv2d_nchwc:N=1,C=160,H=7,W=7,K=960,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  int chunked = 0;
  for (const Trace& d : register_designs(mid, design_space(mid, zen4), 1, 16)) {
    const RegisterTile tile = register_tiles(d).at(0);
    if (factors_of(d, tile.reductions[0]) != std::vector<int64_t>{5, 2}) continue;
    ++chunked;
    EXPECT_EQ(factors_of(d, tile.reductions[3]), (std::vector<int64_t>{1, 16})) << "rc: whole, inside";
    EXPECT_EQ(factors_of(d, tile.tiles[2]), (std::vector<int64_t>{1, 1, 7, 1})) << "h: 7 rows in S2";
    SampleFailure why;
    std::optional<Candidate> c = replay_candidate(mid, d, &why);
    ASSERT_TRUE(c) << why.name() << ": " << why.message;
    testing::expect_same_results(mid, c->func);
  }
  EXPECT_GE(chunked, 2);

  // 64 channels are one chunk: no design splits them, none puts rows in S2.
  PrimFunc shallow = workload("conv2d_nchwc:N=1,C=64,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  for (const Trace& d : register_designs(shallow, design_space(shallow, zen4), 1, 16)) {
    const RegisterTile tile = register_tiles(d).at(0);
    EXPECT_LE(factors_of(d, tile.tiles[2]).at(2), 1) << d.str();
  }
}

// The variables of a scheduled function's parallel loops, by name,
// space-separated.
std::string parallel_loops(const PrimFunc& f) {
  std::string names;
  post_order_visit(f.body(), [&](const Stmt& s) {
    if (const ForNode* loop = s.as<ForNode>(); loop && loop->for_kind == ForKind::kParallel)
      names += " " + loop->loop_var->name;
  });
  return names;
}

TEST(RegisterDesigns, AOneByOneConvolutionsThreadsSplitItsRowsWhereItsInputWeighsAsMuchAsItsWeights) {
  // Blocked 1x1 conv2d 96->48 at 14² (75 KB of input, 18 KB of weights),
  // loops n, k-blocks, h, w, k-lanes. Before: a shape's register rows on
  // h tiled in S1, inside each parallel job, so the jobs were the
  // k-blocks and columns, each thread reading half of every row, which
  // the depthwise convolution before it had split by rows between the
  // threads. After: the rows tile in S0, first (they split the input as
  // many bytes as the columns do, and come first on the tie), the
  // k-blocks in S1 (or after the rows in S0, on a window shape), so the
  // parallel loop walks rows (i2_0...); the same
  // results. At 7² with 256 channels (50 KB of input, 262 KB of weights)
  // the threads still split the channels, the rows in S1. The weights
  // (parameter 1) are a model's constants, as `kiln tune` says of a
  // model's tasks.
  SpaceParams zen4 = SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"));
  auto row_shapes = [&](const PrimFunc& f, const std::function<void(const Trace&, const RegisterTile&)>& check) {
    int n = 0;
    for (const Trace& d : register_designs(f, design_space(f, zen4), 1, 16, /*constants=*/{1})) {
      const RegisterTile tile = register_tiles(d).at(0);
      const std::vector<int64_t> h = *tile_factors(d.instructions()[tile.tiles[2]]);
      if (tile.vector_tile != 4) continue;  // a sketch vectorized over the columns: its operand is the input
      if (h.at(3) < 2 || h.at(2) > 1) continue;  // rows elsewhere, or a streaming shape's S2 rows
      ++n;
      check(d, tile);
    }
    return n;
  };
  PrimFunc light = workload("conv2d_nchwc:N=1,C=96,H=14,W=14,K=48,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  EXPECT_GE(row_shapes(light,
                       [&](const Trace& d, const RegisterTile& tile) {
                         const std::vector<int64_t> h = *tile_factors(d.instructions()[tile.tiles[2]]);
                         EXPECT_EQ(h.at(1), 1) << "no row tiles in S1: " << d.str();
                         SampleFailure why;
                         std::optional<Candidate> c = replay_candidate(light, d, &why);
                         ASSERT_TRUE(c) << why.name() << ": " << why.message;
                         const std::string parallel = parallel_loops(c->func);  // and a weight pack's (ax...)
                         EXPECT_NE(parallel.find(" i2_0"), std::string::npos) << parallel;
                         EXPECT_EQ(parallel.find(" i1_0"), std::string::npos) << parallel;
                         EXPECT_EQ(parallel.find(" i3_0"), std::string::npos) << parallel;
                         testing::expect_same_results(light, c->func);
                       }),
            2);
  PrimFunc heavy = workload("conv2d_nchwc:N=1,C=256,H=7,W=7,K=256,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  EXPECT_GE(row_shapes(heavy,
                       [&](const Trace& d, const RegisterTile& tile) {
                         const std::vector<int64_t> h = *tile_factors(d.instructions()[tile.tiles[2]]);
                         EXPECT_EQ(h.at(0), 1) << "the rows inside each job: " << d.str();
                       }),
            1);
}

TEST(RegisterDesigns, AOneByOneConvolutionsRegisterTilesSpanOutputChannelBlocks) {
  // Blocked 1x1 conv2d 64->256 at 56², loops n, k-blocks, h, w, k-lanes;
  // the input leaves out the k-blocks, so one broadcast input element
  // serves a row of them. Before: every register tile of the first 16
  // designs held one k-block (28 pixels x 1 on AVX-512), each FMA loading
  // a broadcast of its own. After: 4 k-blocks x 2 x 2 pixels and 4 x 4
  // rows (16 accumulators, 4 weight vectors, 4 broadcasts), and the wide
  // shape, 3 k-blocks (16 of them: 3 + ... + 1) x 8 columns with the
  // pixels outside (24 accumulators, 3 weight vectors, 1 broadcast); on
  // AVX2's 16 registers 4 x 2 rows and 3 x 4 columns. A 3x3 window has its
  // window shapes instead. The designs of those shapes are run against the
  // interpreter at 16², where the same shapes come among others (at 56² it
  // takes seconds a design).
  using Shapes = std::set<std::vector<int64_t>>;
  auto channel_shapes = [](const std::string& w, const std::string& target, const Shapes& run) {
    PrimFunc f = workload(w);
    std::optional<testing::SameResults> same;
    if (!run.empty()) same.emplace(f);
    Shapes shapes;
    for (const Trace& d : register_designs(f, design_space(f, SpaceParams::for_target(Target::parse(target))), 1, 16)) {
      const std::vector<int64_t> s = register_tile_of(d);
      if (register_tiles(d).at(0).vector_tile != 4 || s.at(1) < 2) continue;  // the output-channel vector's, k-blocks
      shapes.insert(s);
      SampleFailure why;
      std::optional<Candidate> c = replay_candidate(f, d, &why);
      if (!c) ADD_FAILURE() << why.name() << ": " << why.message;
      else if (run.count(s)) same->expect(c->func);
    }
    return shapes;
  };
  auto layer = [](int size, int r, int block) {
    return "conv2d_nchwc:N=1,C=64,H=" + std::to_string(size) + ",W=" + std::to_string(size) + ",K=256,R=" +
           std::to_string(r) + ",S=" + std::to_string(r) + ",stride=1,pad=" + std::to_string(r / 2) +
           ",cb=" + std::to_string(block) + ",kb=" + std::to_string(block);
  };
  auto includes = [](const Shapes& all, const Shapes& some) {
    return std::includes(all.begin(), all.end(), some.begin(), some.end());
  };
  const std::string avx512 = "llvm -mcpu=znver4 -num-cores=2", avx2 = "llvm -mcpu=haswell -num-cores=2";
  const Shapes on_avx512{{1, 4, 2, 2, 16}, {1, 4, 4, 1, 16}, {1, 3, 1, 8, 16}};
  const Shapes on_avx2{{1, 4, 2, 1, 8}, {1, 3, 1, 4, 8}};
  EXPECT_EQ(channel_shapes(layer(56, 1, 16), avx512, {}), on_avx512);
  EXPECT_TRUE(includes(channel_shapes(layer(16, 1, 16), avx512, on_avx512), on_avx512));
  EXPECT_EQ(channel_shapes(layer(56, 1, 8), avx2, {}), on_avx2);
  EXPECT_TRUE(includes(channel_shapes(layer(16, 1, 8), avx2, on_avx2), on_avx2));
  for (const std::vector<int64_t>& s : channel_shapes(layer(56, 3, 16), avx512, {}))
    EXPECT_FALSE(s.at(2) == 2 && s.at(3) == 2) << "a 3x3 window's tile of k-blocks x 2 x 2 pixels";
}

// The wide channel shape orders its register tile's loops with the pixels
// outside the k-blocks. Before (the block's axis order: k-blocks, rows,
// columns, lanes), each column's broadcast stayed live across the blocks:
// 3 x 8 needs 24 accumulators + 8 broadcasts + 3 weight vectors, past
// AVX-512's 32 registers. After: columns, k-blocks, lanes innermost, one
// broadcast at a time.
TEST(RegisterDesigns, TheWideChannelShapesPixelsLoopOutsideItsChannelBlocks) {
  PrimFunc f = workload("conv2d_nchwc:N=1,C=32,H=16,W=16,K=128,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  int wide = 0;
  for (const Trace& d :
       register_designs(f, design_space(f, SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"))), 1, 16)) {
    if (register_tile_of(d) != std::vector<int64_t>{1, 3, 1, 8, 16}) continue;
    ++wide;
    SampleFailure why;
    std::optional<Candidate> c = replay_candidate(f, d, &why);
    ASSERT_TRUE(c) << why.name() << ": " << why.message;
    const std::vector<int64_t> innermost = innermost_extents(c->func, register_tiles(d).at(0).block, 3);
    ASSERT_EQ(innermost.size(), 3u);
    EXPECT_EQ(innermost, (std::vector<int64_t>{8, 3, 16})) << "columns, k-blocks, lanes";
    testing::expect_same_results(f, c->func);
  }
  EXPECT_EQ(wide, 1);
}

TEST(RegisterDesigns, AOneByOneConvolutionsWideBlockedShapeRunsFourBlocksInsideARowOfPixelsOverChunksOf128) {
  // Before: the reduction-blocked designs of a 1x1 layer at 7² were 2
  // k-blocks x 7 columns and 4 x 4 (7 as 4 + 3), in the block's axis
  // order, over chunks of 64 channels. After: also 4 k-blocks x all 7
  // columns, the columns' loop outside the k-blocks', over chunks of 128
  // channels (8 rc-blocks), 7 rows in S2; the same results.
  PrimFunc f = workload("conv2d_nchwc:N=1,C=512,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  int wide = 0;
  for (const Trace& d :
       register_designs(f, design_space(f, SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"))), 1, 16)) {
    const RegisterTile tile = register_tiles(d).at(0);
    if (factors_of(d, tile.reductions[0]) != std::vector<int64_t>{4, 8}) continue;
    ++wide;
    EXPECT_EQ(register_tile_of(d), (std::vector<int64_t>{1, 4, 1, 7, 16}));
    EXPECT_EQ(factors_of(d, tile.tiles[2]), (std::vector<int64_t>{1, 1, 7, 1})) << "h: 7 rows in S2";
    SampleFailure why;
    std::optional<Candidate> c = replay_candidate(f, d, &why);
    ASSERT_TRUE(c) << why.name() << ": " << why.message;
    const std::vector<int64_t> innermost = innermost_extents(c->func, tile.block, 3);
    ASSERT_EQ(innermost.size(), 3u);
    EXPECT_EQ(innermost, (std::vector<int64_t>{7, 4, 16})) << "columns, k-blocks, lanes";
    testing::expect_same_results(f, c->func);
  }
  EXPECT_EQ(wide, 2) << "on the sketch that packs the weights and on one that reads them where they lie";
}

TEST(RegisterDesigns, AOneByOneConvolutionsBlockedDesignsRunEachBlockGroupOverEveryRowTileWhereItsWeightsOutweighItsInput) {
  // Blocked 1x1 conv2d, loops n, k-blocks, h, w, k-lanes. Before: a
  // reduction-blocked design put up to 4 of its k-block tiles in S1, so the
  // parallel jobs (S0's loops fused with S1's) ran k-groups inside row
  // tiles, each row tile reading all of a thread's weights. After: where
  // the weights weigh more than twice the input (1024->512 at 14²: 2 MB
  // against 0.8 MB), the k-blocks take no tile in S1, the jobs running a
  // k-group over every row tile in turn; where they do not (512->64 at 7²,
  // above), the k-blocks keep their S1 tiles. The same results.
  SpaceParams avx512 = SpaceParams::for_target(Target::parse("llvm -mcpu=znver4 -num-cores=2"));
  auto blocked_k_tiles = [&](const PrimFunc& f) {
    std::vector<std::vector<int64_t>> out;
    for (const Trace& d : register_designs(f, design_space(f, avx512), 1, 16)) {
      const RegisterTile tile = register_tiles(d).at(0);
      if (factors_of(d, tile.reductions[0]).at(1) == 1) continue;  // the reduction whole: not blocked
      out.push_back(factors_of(d, tile.tiles[1]));
      SampleFailure why;
      std::optional<Candidate> c = replay_candidate(f, d, &why);
      EXPECT_TRUE(c) << why.name() << ": " << why.message;
    }
    return out;
  };
  PrimFunc heavy = workload("conv2d_nchwc:N=1,C=1024,H=14,W=14,K=512,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  const std::vector<std::vector<int64_t>> heavy_k = blocked_k_tiles(heavy);
  EXPECT_GE(heavy_k.size(), 2u);
  for (const std::vector<int64_t>& k : heavy_k) EXPECT_EQ(k.at(1), 1) << "no k-block tile in S1";
  PrimFunc light = workload("conv2d_nchwc:N=1,C=512,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  const std::vector<std::vector<int64_t>> light_k = blocked_k_tiles(light);
  EXPECT_TRUE(std::any_of(light_k.begin(), light_k.end(), [](const std::vector<int64_t>& k) { return k.at(1) > 1; }))
      << "the k-blocks keep their S1 tiles where the weights do not outweigh the input";
  // The results, on a heavy layer small enough to check quickly.
  PrimFunc small = workload("conv2d_nchwc:N=1,C=256,H=5,W=5,K=128,R=1,S=1,stride=1,pad=0,cb=16,kb=16");
  for (const Trace& d : register_designs(small, design_space(small, avx512), 1, 16)) {
    const RegisterTile tile = register_tiles(d).at(0);
    if (factors_of(d, tile.reductions[0]).at(1) == 1) continue;
    EXPECT_EQ(factors_of(d, tile.tiles[1]).at(1), 1) << d.str();
    std::optional<Candidate> c = replay_candidate(small, d);
    ASSERT_TRUE(c);
    testing::expect_same_results(small, c->func);
  }
}

TEST(RegisterDesigns, EveryDesignComputesTheSame) {
  for (const char* w : {"matmul:M=22,N=32,K=8", "conv2d_nchw:N=1,C=4,H=6,W=6,K=16,R=3,S=3,stride=1,pad=1",
                        "dense:M=14,N=16,K=8,bias=1,act=relu"}) {
    PrimFunc f = workload(w);
    std::vector<Trace> designs = register_designs(f, design_space(f, avx2()), 3, 8);
    EXPECT_FALSE(designs.empty()) << w;
    for (const Trace& d : designs) {
      SampleFailure why;
      std::optional<Candidate> c = replay_candidate(f, d, &why);
      ASSERT_TRUE(c) << w << ": " << why.name() << ": " << why.message;
      testing::expect_same_results(f, c->func);
    }
  }
}

TEST(RegisterDesigns, AWorkloadWithoutATiledBlockHasNone) {
  PrimFunc f = workload("softmax:M=4,N=32");
  EXPECT_TRUE(register_designs(f, design_space(f, avx2()), 1, 8).empty());
}

}  // namespace
}  // namespace kiln::search
