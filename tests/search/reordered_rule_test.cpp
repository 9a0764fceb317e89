// A rule that writes its steps in another order: the register tiles, the
// sized designs and the designs stored before must not notice.
//
// Before, the search read a block's register tile by position (the
// four-level tile samples after the last get_block, closed by the
// kiln.tiled annotation) and carried a stored design over by comparing
// steps position by position; multi-level tiling annotating its block
// before drawing the tiles would have left every design without a
// register tile, and every stored design unadoptable, without an error.
// Now both read the trace by def-use (tir/schedule/dataflow.h).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/structural.h"
#include "ops/workload.h"
#include "search/register_designs.h"
#include "search/register_tile.h"
#include "search/rules/rules.h"
#include "search/sample.h"
#include "search/space.h"
#include "search/transfer.h"
#include "support/kernel_check.h"
#include "tir/schedule/dataflow.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

SpaceParams avx2() { return SpaceParams::for_target(Target::parse("llvm -mcpu=haswell -num-cores=2")); }

bool is_tiling_annotation(const Instruction& inst) {
  if (inst.kind != &inst::annotate) return false;
  const std::string& key = std::get<AnnotateAttrs>(inst.attrs).key;
  return key == kTiledAnn || key == kLanesAnn || key == kVectorAxisAnn;
}

// `sketch` as multi-level tiling would write it if it annotated each block
// right after taking its handle, before splitting its loops: the
// annotations moved up to just after their block's get_block.
Trace annotations_first(const Trace& sketch) {
  const std::vector<Instruction>& insts = sketch.instructions();
  const TraceDefs defs(sketch);
  std::vector<std::vector<size_t>> after(insts.size());  // moved annotations, by the get_block they follow
  std::vector<bool> moved(insts.size(), false);
  for (size_t i = 0; i < insts.size(); ++i) {
    if (!is_tiling_annotation(insts[i])) continue;
    const std::optional<TraceDefs::Def> block = defs.def_of_input(i, 0);
    if (!block) continue;
    after[block->instruction].push_back(i);
    moved[i] = true;
  }
  Trace out;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (moved[i]) continue;
    out.append(insts[i]);
    for (size_t a : after[i]) out.append(insts[a]);
  }
  return out;
}

// A register tile's S3 factors, in loop order.
std::vector<int64_t> s3_of(const Trace& t, const RegisterTile& tile) {
  std::vector<int64_t> out;
  for (size_t i : tile.tiles) out.push_back(tile_factors(t.instructions()[i])->back());
  return out;
}

TEST(ReorderedRule, RegisterTilesAndStoredDesignsStillRead) {
  PrimFunc f = workload("matmul:M=64,N=64,K=32");
  const std::vector<Trace> sketches = design_space(f, avx2());
  std::vector<Trace> reordered;
  for (const Trace& s : sketches) reordered.push_back(annotations_first(s));

  int tiled = 0;
  for (size_t s = 0; s < sketches.size(); ++s) {
    const Trace& before = sketches[s];
    const Trace& after = reordered[s];
    ASSERT_EQ(before.size(), after.size());
    // The reorder is legal: both replay to the same function.
    EXPECT_TRUE(structural_equal(apply_trace(before, f).func(), apply_trace(after, f).func())) << after.str();
    const std::vector<RegisterTile> a = register_tiles(before), b = register_tiles(after);
    ASSERT_EQ(a.size(), b.size()) << after.str();
    for (size_t t = 0; t < a.size(); ++t) {
      ++tiled;
      EXPECT_EQ(a[t].block, b[t].block);
      EXPECT_EQ(a[t].budget, b[t].budget);
      EXPECT_EQ(a[t].lanes, b[t].lanes);
      EXPECT_EQ(a[t].vector_tile, b[t].vector_tile);
      ASSERT_EQ(a[t].tiles.size(), b[t].tiles.size());
      ASSERT_EQ(a[t].reductions.size(), b[t].reductions.size());
      EXPECT_EQ(s3_of(before, a[t]), s3_of(after, b[t]));
      // The instructions moved: the same samples, at other positions.
      EXPECT_NE(a[t].tiles, b[t].tiles);
    }
  }
  EXPECT_GT(tiled, 0) << "matmul has register tiles";

  // The sized designs come out the same, in either order.
  const std::vector<Trace> sized_before = register_designs(f, sketches, 1, 8);
  const std::vector<Trace> sized_after = register_designs(f, reordered, 1, 8);
  ASSERT_FALSE(sized_before.empty());
  ASSERT_EQ(sized_before.size(), sized_after.size());
  for (size_t d = 0; d < sized_before.size(); ++d)
    EXPECT_TRUE(structural_equal(apply_trace(sized_before[d], f).func(), apply_trace(sized_after[d], f).func()));

  // A design drawn and stored before the reorder is adopted by the
  // reordered sketches, with its decisions, and computes the same.
  for (size_t s = 0; s < sketches.size(); ++s) {
    std::optional<Candidate> stored = sample_candidate(f, sketches[s], 7 + s);
    ASSERT_TRUE(stored) << "sketch " << s;
    std::optional<Trace> adopted = adopt_decisions(reordered, stored->trace);
    ASSERT_TRUE(adopted) << "sketch " << s;
    SampleFailure why;
    std::optional<Candidate> again = replay_candidate(f, *adopted, &why);
    ASSERT_TRUE(again) << why.name() << ": " << why.message;
    EXPECT_TRUE(structural_equal(again->func, stored->func)) << adopted->str();
  }
}

TEST(ReorderedRule, TilesOfAnotherBlocksHandleAreNotThisBlocks) {
  // add-rfactor splits a reduction with a two-level sample before
  // multi-level tiling takes the block again: that sample tiles another
  // handle's loop and is not one of the register tile's reductions.
  PrimFunc f = workload("matmul:M=2,N=2,K=4096");
  int checked = 0;
  for (const Trace& sketch : design_space(f, avx2()))
    for (const RegisterTile& tile : register_tiles(sketch))
      for (size_t r : tile.reductions) {
        const TraceDefs defs(sketch);
        const std::optional<TraceDefs::Def> loops = defs.def_of_input(r, 0);
        ASSERT_TRUE(loops);
        const Instruction& get_loops = sketch.instructions()[loops->instruction];
        ASSERT_EQ(get_loops.kind, &inst::get_loops);
        EXPECT_EQ(defs.block_name(std::get<RV>(get_loops.inputs.at(0))), tile.block);
        ++checked;
      }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace kiln::search
