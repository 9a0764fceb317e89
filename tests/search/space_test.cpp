// The design space: the sketches the rules make of a workload, and the
// candidates drawn from them, each legal, correct against the interpreter,
// and rebuilt exactly by replaying its trace.
#include <gtest/gtest.h>

#include "core/structural.h"
#include "ops/workload.h"
#include "search/register_tile.h"
#include "search/sample.h"
#include "search/space.h"
#include "support/kernel_check.h"
#include "search/rules/rules.h"
#include "tir/tensor_intrin.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

SpaceParams avx2() { return SpaceParams::for_target(Target::parse("llvm -mcpu=haswell -num-cores=2")); }

// The instruction kinds of a trace, in order, for pinning a sketch's shape.
std::string kinds(const Trace& t) {
  std::string s;
  for (const Instruction& i : t.instructions()) s += std::string(s.empty() ? "" : " ") + std::string(i.kind->name);
  return s;
}

TEST(DesignSpace, MatmulHasThreeSketchesAndThemWithBPacked) {
  std::vector<Trace> sketches = design_space(workload("matmul:M=64,N=64,K=64"), avx2());
  ASSERT_EQ(sketches.size(), 6u);
  const std::string tiling =
      "get_block get_loops sample_tile split sample_perfect_tile split sample_perfect_tile split reorder "
      "annotate annotate";  // i's tiles may end partially; j's (vectorized) and k's divide them
  const std::string write_back = " get_block cache_write reverse_compute_at";
  const std::string pvu = " get_block annotate annotate sample_categorical annotate";
  EXPECT_EQ(kinds(sketches[0]), tiling + pvu);
  EXPECT_EQ(kinds(sketches[1]), tiling + write_back + pvu);
  EXPECT_EQ(kinds(sketches[2]), tiling + write_back + pvu);
  // B[k, j], read by the vector loads along j and again by every row tile,
  // is copied, and where the copy goes is sampled.
  const std::string pack = " get_block cache_read get_block sample_compute_location compute_at";
  EXPECT_EQ(kinds(sketches[3]), tiling + pack + pvu);
  EXPECT_EQ(kinds(sketches[4]), tiling + write_back + pack + pvu);
  EXPECT_EQ(kinds(sketches[5]), tiling + write_back + pack + pvu);
  EXPECT_NE(sketches[3].str().find(", 1, \"global\")"), std::string::npos) << sketches[3].str();
}

TEST(DesignSpace, AnInt8ProductIsTiledForTheTargetsDotProduct) {
  // The intrinsic's loops innermost, B packed in its layout, the rest tiled;
  // the three ways of writing the result, and nothing else.
  auto intrin_of = [](const std::vector<Trace>& sketches) {
    std::set<std::string> names;
    for (const Trace& t : sketches)
      for (const Instruction& i : t.instructions())
        if (const auto* a = std::get_if<AnnotateAttrs>(&i.attrs); a && a->key == kTensorIntrinAnn)
          names.insert(std::get<std::string>(*a->value));
    return names;
  };
  const PrimFunc f = workload("matmul_u8s8s32:M=64,N=64,K=64");
  std::vector<Trace> sketches = design_space(f, avx2());
  ASSERT_EQ(sketches.size(), 3u);
  EXPECT_EQ(intrin_of(sketches), std::set<std::string>{"x86_avx2_u8s8s32_8x4"});
  // Weights of 7 bits (the block says so): vpmaddubsw's form on AVX2; on a
  // VNNI CPU, VNNI's all the same.
  EXPECT_EQ(intrin_of(design_space(workload("matmul_u8s7s32:M=64,N=64,K=64"), avx2())),
            std::set<std::string>{"x86_avx2_u8s7s32_8x4"});
  EXPECT_NE(sketches[0].str().find("lambda a0, a1: (a1 // 8, a0 // 4, a1 % 8, a0 % 4)"), std::string::npos)
      << sketches[0].str();
  const SpaceParams vnni = SpaceParams::for_target(Target::parse("llvm -mcpu=sapphirerapids -num-cores=2"));
  EXPECT_EQ(intrin_of(design_space(f, vnni)), std::set<std::string>{"x86_vnni_u8s8s32_16x4"});
  EXPECT_EQ(intrin_of(design_space(workload("matmul_u8s7s32:M=64,N=64,K=64"), vnni)),
            std::set<std::string>{"x86_vnni_u8s8s32_16x4"});
  // Columns no 16 divides: the 8 lanes of the 256-bit form.
  EXPECT_EQ(intrin_of(design_space(workload("matmul_u8s8s32:M=64,N=40,K=64"), vnni)),
            std::set<std::string>{"x86_vnni_u8s8s32_8x4"});
  // A convolution's output channels in one block of 16: the block's loop
  // is the intrinsic's own, not split into a unit loop and 16 (which left
  // nothing to tile, and the 8-lane form took over).
  EXPECT_EQ(intrin_of(design_space(
                workload("conv2d_nchwc_u8s8s32:N=1,C=32,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1,cb=16,kb=16"), vnni)),
            std::set<std::string>{"x86_vnni_u8s8s32_16x4"});
  // A dense layer's weights, one row per output feature: packed into the
  // intrinsic's layout like matmul's B.
  EXPECT_EQ(intrin_of(design_space(workload("dense_u8s8s32:M=64,N=64,K=64"), vnni)),
            std::set<std::string>{"x86_vnni_u8s8s32_16x4"});
  // Without a dot product, the usual tiling.
  const SpaceParams sse = SpaceParams::for_target(Target::parse("llvm -mcpu=x86-64 -num-cores=2"));
  EXPECT_TRUE(intrin_of(design_space(f, sse)).empty());
  EXPECT_EQ(design_space(f, sse).size(), 6u);
}

TEST(DesignSpace, Conv2dTilesTheConvolutionAndSamplesWhereThePaddingGoes) {
  std::vector<Trace> sketches =
      design_space(workload("conv2d_nchw:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1"), avx2());
  ASSERT_EQ(sketches.size(), 5u);
  for (const Trace& t : sketches) {
    EXPECT_NE(kinds(t).find("sample_compute_location compute_at"), std::string::npos) << t.str();
    EXPECT_NE(kinds(t).find("reorder"), std::string::npos) << t.str();
  }
  // The first three vectorize the output column, q: the last spatial loop.
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(kinds(sketches[i]).find("transform_layout"), std::string::npos);
  // q reads the input at q + s, which nothing can pack; the output channel,
  // k, reads the weights W[k, c, r, s]: the last two vectorize k, with the
  // register tile laid out (n, p, q, k) and the weights copied as (c, r, s, k).
  for (size_t i = 3; i < 5; ++i) {
    const std::string text = sketches[i].str();
    EXPECT_NE(text.find("annotate(b0, \"kiln.vector_axis\", 1)"), std::string::npos) << text;
    EXPECT_NE(text.find("lambda a0, a1, a2, a3: (a0, a2, a3, a1)"), std::string::npos) << text;
    EXPECT_NE(text.find("lambda a0, a1, a2, a3: (a1, a2, a3, a0)"), std::string::npos) << text;
    EXPECT_NE(kinds(sketches[i]).find("cache_write get_block transform_layout reverse_compute_at"), std::string::npos) << text;
    EXPECT_NE(kinds(sketches[i]).find("cache_read transform_layout"), std::string::npos) << text;
  }
}

TEST(DesignSpace, AnEpilogueTakesTheWriteBacksPlace) {
  // dense + bias + relu: bias_add is inlined into relu, and relu is computed
  // under the dense tiles instead of a cache_write.
  // (And each again with the weights W[j, k] packed transposed, j last.)
  std::vector<Trace> sketches = design_space(workload("dense:M=16,N=32,K=16,bias=1,act=relu"), avx2());
  ASSERT_EQ(sketches.size(), 6u);
  EXPECT_NE(sketches[3].str().find("lambda a0, a1: (a1, a0)"), std::string::npos) << sketches[3].str();
  EXPECT_NE(kinds(sketches[0]).find("compute_inline"), std::string::npos) << sketches[0].str();
  EXPECT_EQ(kinds(sketches[1]).find("cache_write"), std::string::npos) << sketches[1].str();
  EXPECT_NE(kinds(sketches[1]).find("reverse_compute_at"), std::string::npos) << sketches[1].str();
}

TEST(DesignSpace, ABlockWithoutReuseIsNotTiled) {
  // softmax: the row maximum and the row sum are reductions without reuse;
  // each is left as it is or factored (below), never tiled.
  std::vector<Trace> sketches = design_space(workload("softmax:M=4,N=32"), avx2());
  ASSERT_EQ(sketches.size(), 9u) << "3 forms of the maximum x 3 of the sum";
  EXPECT_EQ(kinds(sketches[0]).find("rfactor"), std::string::npos) << sketches[0].str();
  for (const Trace& t : sketches) EXPECT_EQ(kinds(t).find("reorder"), std::string::npos) << t.str();
}

TEST(DesignSpace, AReductionIsFactoredOverEachPieceOfItsSplitLoop) {
  // reduce_sum, B[i] = sum_k A[i, k]: as it is, then with k split in two
  // (sampled) and the partial sums factored over the outer piece (which
  // postprocessing runs in parallel) or the inner one (a spatial axis of
  // B_rf that it vectorizes), computed where a sampled location says.
  std::vector<Trace> sketches = design_space(workload("reduce_sum:M=4,N=256"), avx2());
  ASSERT_EQ(sketches.size(), 3u);
  const std::string pvu = " get_block annotate annotate sample_categorical annotate";
  EXPECT_EQ(kinds(sketches[0]), "get_block annotate annotate sample_categorical annotate") << sketches[0].str();
  const std::string rf =
      "get_block get_loops sample_perfect_tile split rfactor sample_compute_location compute_at";
  EXPECT_EQ(kinds(sketches[1]), rf + pvu);
  EXPECT_EQ(kinds(sketches[2]), rf + pvu);
  EXPECT_NE(sketches[1].str().find("l5, l6 = split(l2, v3, v4)\nb7 = rfactor(l5, 1)"), std::string::npos)
      << sketches[1].str();
  EXPECT_NE(sketches[2].str().find("l5, l6 = split(l2, v3, v4)\nb7 = rfactor(l6, 1)"), std::string::npos)
      << sketches[2].str();
}

TEST(DesignSpace, ATiledBlockIsFactoredOnlyWhenItsOutputsAreFew) {
  // matmul 2x2x256: four outputs for two cores' 32 jobs, a reduction of 256.
  // Tiled (six sketches) or factored (two: the partial sums' block is not tiled).
  EXPECT_EQ(design_space(workload("matmul:M=2,N=2,K=256"), avx2()).size(), 8u);
  // matmul 64x64x64 has outputs enough: tiled only (the six sketches above).
  EXPECT_EQ(design_space(workload("matmul:M=64,N=64,K=64"), avx2()).size(), 6u);
  // A reduction no longer than the cores are many is left alone.
  EXPECT_EQ(design_space(workload("reduce_sum:M=4,N=2"), avx2()).size(), 1u);
}

TEST(Candidates, AFailedReplaySaysWhichKindOfError) {
  PrimFunc f = workload("matmul:M=16,N=16,K=16");
  Trace sketch = design_space(f, avx2())[0];
  size_t tile = 0;
  while (sketch.instructions()[tile].kind != &inst::sample_perfect_tile) ++tile;
  // Before: a decision that multiplies to the extent replays.
  EXPECT_TRUE(replay_candidate(f, sketch.with_decision(tile, TileDecision{{1, 2, 2, 4}})));
  // After: one that does not is a DecisionError at that instruction.
  SampleFailure why;
  EXPECT_FALSE(replay_candidate(f, sketch.with_decision(tile, TileDecision{{1, 2, 2, 3}}), &why));
  EXPECT_EQ(why.kind, ScheduleErrorKind::kDecision);
  EXPECT_NE(why.message.find("trace instruction " + std::to_string(tile) + ": (sample_perfect_tile)"),
            std::string::npos)
      << why.message;
}

TEST(Candidates, ARegisterTileThatSpillsIsRefused) {
  PrimFunc f = workload("matmul:M=64,N=64,K=64");
  Trace sketch = design_space(f, avx2())[0];  // 12 ymm registers for accumulators
  std::vector<size_t> tiles;  // i, j, k
  for (size_t n = 0; n < sketch.size(); ++n)
    if (is_tile_sample(sketch.instructions()[n])) tiles.push_back(n);
  ASSERT_EQ(tiles.size(), 3u);
  // Before: a 4 x 16 register tile (the S3 tiles of i and j): 4 x 2 ymm.
  Trace fits = sketch.with_decision(tiles[0], TileDecision{{2, 2, 4, 4}}).with_decision(tiles[1], TileDecision{{4, 1, 1, 16}});
  EXPECT_TRUE(replay_candidate(f, fits));
  // After: 8 x 16 needs 16 ymm, more than the 12 the accumulators may use.
  SampleFailure why;
  Trace spills = sketch.with_decision(tiles[0], TileDecision{{2, 4, 1, 8}}).with_decision(tiles[1], TileDecision{{4, 1, 1, 16}});
  EXPECT_FALSE(replay_candidate(f, spills, &why));
  EXPECT_EQ(why.kind, ScheduleErrorKind::kRegisterTile);
  EXPECT_NE(why.message.find("needs 16 vector registers, more than the 12"), std::string::npos) << why.message;
  // Sampling repairs such a draw: factors move from S3 out to S2, and each
  // tile still multiplies to its loop's extent.
  RandomState rand(3);
  Trace repaired = fit_register_tiles(spills.without_postproc(), rand);
  std::vector<RegisterTile> blocks = register_tiles(repaired);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_LE(registers_of(repaired, blocks[0]), 12);
  std::vector<int64_t> i = *tile_factors(repaired.instructions()[tiles[0]]);
  EXPECT_EQ(i[0] * i[1] * i[2] * i[3], 64);
  EXPECT_TRUE(replay_candidate(f, repaired));
}

TEST(Candidates, ARegisterTileOfSixRowsCoversRowsItDoesNotDivide) {
  // BLIS's AVX2 kernel, 6 rows x 2 ymm, on 22 rows: 4 tiles, the last predicated.
  PrimFunc f = workload("matmul:M=22,N=32,K=8");
  std::vector<Trace> sketches = design_space(f, avx2());
  for (size_t s : {0, 1, 4}) {  // in place; written back; written back with B packed
    std::vector<size_t> tiles;
    for (size_t n = 0; n < sketches[s].size(); ++n)
      if (is_tile_sample(sketches[s].instructions()[n])) tiles.push_back(n);
    ASSERT_EQ(tiles.size(), 3u);
    Trace design = sketches[s].without_postproc()
                       .with_decision(tiles[0], TileDecision{{TileDecision::kInferred, 1, 1, 6}})
                       .with_decision(tiles[1], TileDecision{{2, 1, 1, 16}})
                       .with_decision(tiles[2], TileDecision{{2, 4}});
    SampleFailure why;
    std::optional<Candidate> c = replay_candidate(f, design, &why);
    ASSERT_TRUE(c) << "sketch " << s << ": " << why.name() << ": " << why.message;
    EXPECT_EQ(*tile_factors(c->trace.instructions()[tiles[0]]), (std::vector<int64_t>{4, 1, 1, 6}));
    testing::expect_same_results(f, c->func);
  }
}

// Every candidate drawn from every sketch runs and matches the interpreter,
// and replaying its trace rebuilds it.
void expect_candidates_correct(const std::string& w, int draws) {
  PrimFunc f = workload(w);
  const testing::SameResults same(f);
  std::vector<Trace> sketches = design_space(f, avx2());
  ASSERT_FALSE(sketches.empty());
  for (size_t s = 0; s < sketches.size(); ++s) {
    for (int d = 0; d < draws; ++d) {
      SampleFailure why;
      std::optional<Candidate> c = sample_candidate(f, sketches[s], 1000 * s + d, &why);
      ASSERT_TRUE(c) << w << " sketch " << s << " draw " << d << ": " << why.name() << ": " << why.message;
      same.expect(c->func);
      std::optional<Candidate> again = replay_candidate(f, c->trace, &why);
      ASSERT_TRUE(again) << why.message;
      EXPECT_TRUE(structural_equal(again->func, c->func)) << c->trace.str();
      EXPECT_EQ(again->trace.to_json(), c->trace.to_json());
    }
  }
}

TEST(Candidates, Matmul) { expect_candidates_correct("matmul:M=16,N=24,K=8", 4); }
// On whichever dot product the host has (the space's target is haswell's:
// vpmaddwd, which every x86 CPU here runs).
TEST(Candidates, Int8Matmul) { expect_candidates_correct("matmul_u8s8s32:M=8,N=32,K=16", 3); }
TEST(Candidates, Int8Conv2dNchwc) {
  expect_candidates_correct("conv2d_nchwc_u8s8s32:N=1,C=16,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1,cb=8,kb=8", 2);
}
TEST(Candidates, Int8MatmulOf7BitWeights) { expect_candidates_correct("matmul_u8s7s32:M=8,N=32,K=16", 3); }
TEST(Candidates, Int8Dense) { expect_candidates_correct("dense_u8s8s32:M=8,N=32,K=16", 3); }
// channels first: output channels are not contiguous in the output, which
// the intrinsic writes 8 or 16 of at once; the usual tiling, in int32.
TEST(Candidates, Int8Conv2dNchw) {
  expect_candidates_correct("conv2d_nchw_u8s8s32:N=1,C=8,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1", 2);
}
TEST(Candidates, BatchMatmul) { expect_candidates_correct("batch_matmul:B=2,M=8,N=16,K=8", 2); }
TEST(Candidates, DenseBiasRelu) { expect_candidates_correct("dense:M=8,N=16,K=8,bias=1,act=relu", 3); }
TEST(Candidates, Conv2d) { expect_candidates_correct("conv2d_nchw:N=1,C=4,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1", 3); }
TEST(Candidates, DepthwiseConv2d) { expect_candidates_correct("depthwise_conv2d_nchw:N=1,C=8,H=6,W=6,R=3,S=3,stride=1,pad=1", 2); }
TEST(Candidates, Softmax) { expect_candidates_correct("softmax:M=4,N=32", 2); }
TEST(Candidates, ReduceSum) { expect_candidates_correct("reduce_sum:M=3,N=96", 4); }
TEST(Candidates, MatmulWithFewOutputs) { expect_candidates_correct("matmul:M=2,N=2,K=64", 1); }
TEST(Candidates, WinogradConv2d) {
  expect_candidates_correct("conv2d_winograd_nchwc:N=1,C=8,H=7,W=6,K=8,pad=1,cb=4,kb=4,m=2", 2);
  expect_candidates_correct("conv2d_winograd_nchwc:N=1,C=4,H=6,W=5,K=4,pad=0,cb=4,kb=4,m=4", 1);
}
// Reductions that add-rfactor factors: pooling windows (r and s fused)
// and layer norm's row sums.
void expect_factored_candidates_correct(const std::string& w, int draws) {
  int factored = 0;
  for (const Trace& t : design_space(workload(w), avx2())) factored += kinds(t).find("rfactor") != std::string::npos;
  EXPECT_GT(factored, 0) << w;
  expect_candidates_correct(w, draws);
}
TEST(Candidates, AvgPool2d) { expect_factored_candidates_correct("avg_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=1,pad=1", 2); }
TEST(Candidates, MaxPool2d) { expect_factored_candidates_correct("max_pool2d:N=1,C=2,H=6,W=6,R=2,S=2,stride=2,pad=0", 2); }
TEST(Candidates, LayerNorm) { expect_factored_candidates_correct("layer_norm:M=3,N=40", 1); }

}  // namespace
}  // namespace kiln::search
