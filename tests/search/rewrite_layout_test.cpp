// rewrite_layouts (search/rewrite_layout.h): a parameter's copy left at the
// root is laid out in the order its tiled consumer reads it, one digit per
// tile; the program still computes what it did.
#include <gtest/gtest.h>

#include "core/printer.h"
#include "ops/workload.h"
#include "search/block_info.h"
#include "search/postproc.h"
#include "search/rewrite_layout.h"
#include "search/rules/rules.h"
#include "support/kernel_check.h"
#include "tir/printer.h"
#include "tir/schedule/locate.h"
#include "tir/transform/split_prepack.h"

namespace kiln::search {
namespace {

PrimFunc workload(const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }

// The shape of the buffer block `name` writes.
std::vector<int64_t> written_shape(const PrimFunc& f, const std::string& name) {
  std::vector<int64_t> out;
  for (const Expr& e : block_of(locate_block(f.body(), name)->stmt)->writes[0].buffer().shape())
    out.push_back(*as_const_int(e));
  return out;
}

// matmul C[i, j] += A[i, k] * B[k, j], j tiled (2, 2, 16) and k (4, 8),
// in the order j0 i k0 j1 k1 j2, B copied at the root.
Schedule tiled_with_copy_at_root(const PrimFunc& f) {
  Schedule sch(f);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> l = sch.get_loops(c);  // i j k
  std::vector<LoopRV> j = sch.split(l[1], {2, 2, 16});
  std::vector<LoopRV> k = sch.split(l[2], {4, 8});
  sch.reorder({j[0], l[0], k[0], j[1], k[1], j[2]});
  sch.annotate(c, kTiledAnn, AnnValue(int64_t{28}));
  sch.cache_read(c, 1, "global");
  return sch;
}

// Before: B_global[k, j], 32 x 64, its rows 64 floats apart, a j2 vector
// load of 16 reading 16 of them. After: one digit per tile in loop order,
// [j0, k0, j1, k1, j2]: the loads of consecutive k1 are 16 floats apart,
// the tile of 8 x 16 contiguous; and the copy names the parameter it packs.
TEST(RewriteLayout, ACopyAtTheRootTakesTheOrderOfItsConsumersTiles) {
  const PrimFunc f = workload("matmul:M=8,N=64,K=32");
  Schedule sch = tiled_with_copy_at_root(f);
  EXPECT_EQ(written_shape(sch.func(), "B_global"), (std::vector<int64_t>{32, 64}));
  rewrite_layouts(sch);
  EXPECT_EQ(written_shape(sch.func(), "B_global"), (std::vector<int64_t>{2, 4, 2, 8, 16}));
  const BlockNode* copy = block_of(locate_block(sch.func().body(), "B_global")->stmt);
  ASSERT_TRUE(copy->annotations.count(kPrepackAnn));
  EXPECT_TRUE(is_const_int(copy->annotations.at(kPrepackAnn), 1));  // B, the second parameter
  const std::string text = to_string(sch.func());
  EXPECT_NE(text.find("B_global[v_i1 // 32, v_k // 8, v_i1 // 16 % 2, v_k % 8, v_i1 % 16]"), std::string::npos) << text;
  testing::expect_same_results(f, sch.func());
}

// Under the consumer's tiles the copy is a panel of its own already: it
// stays as it is, and so does a copy whose consumer is not tiled.
TEST(RewriteLayout, OnlyRootCopiesOfTiledConsumersAreRewritten) {
  const PrimFunc f = workload("matmul:M=8,N=64,K=32");
  Schedule under = tiled_with_copy_at_root(f);
  under.compute_at(under.get_block("B_global"), under.get_loops(under.get_block("C"))[0]);
  rewrite_layouts(under);
  EXPECT_EQ(written_shape(under.func(), "B_global"), (std::vector<int64_t>{32, 64}));

  Schedule untiled(f);
  untiled.cache_read(untiled.get_block("C"), 1, "global");
  rewrite_layouts(untiled);
  EXPECT_EQ(written_shape(untiled.func(), "B_global"), (std::vector<int64_t>{32, 64}));
}

// Postprocessing rewrites the layout once the tiles are drawn; the program
// it leaves (parallel, vectorized) computes the same.
TEST(RewriteLayout, PostprocessingRewritesAndTheKernelAgrees) {
  const PrimFunc f = workload("matmul:M=8,N=64,K=32");
  Schedule sch = tiled_with_copy_at_root(f);
  BlockRV root = sch.get_block(root_block(sch.func()));
  sch.annotate(root, kParallelAnn, AnnValue(int64_t{32}));
  sch.annotate(root, kVectorizeAnn, AnnValue(int64_t{64}));
  postprocess(sch);
  EXPECT_EQ(written_shape(sch.func(), "B_global"), (std::vector<int64_t>{2, 4, 2, 8, 16}));
  testing::expect_same_results(f, sch.func());
}

}  // namespace
}  // namespace kiln::search
