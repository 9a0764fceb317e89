// The schedule rules that make a workload's design space (search/space.h),
// after Ansor's sketch rules and MetaSchedule's schedule rules, written
// anew. Each works on any compute definition, from what block_info.h sees,
// never from the operator's name.
//
// A rule that branches returns one schedule per branch (one sketch each); a
// rule that does not apply returns its input. Sampling instructions leave
// their decisions to the search: the sketch records one, the search draws
// others by replaying the trace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "search/block_info.h"
#include "search/space_params.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {

// Inlines every injective block that is not an output and whose consumers
// multi-level tiling leaves alone (bias_add into relu). Injective producers
// of a tiled block (conv2d's padding) are left to compute_location.
void auto_inline(Schedule& sch);

// On a GPU: also inlines the injective producers auto_inline leaves to a
// tiled block (conv2d's padding), whose reads its shared-memory copy then
// makes; one kernel instead of two, no padded tensor in device memory.
void inline_producers_of_tiled(Schedule& sch);

// Whether multi-level tiling takes a block: a reduction with spatial axes
// whose operands some outputs share (data reuse).
bool multi_level_tiling_takes(const BlockInfo& b);

// Multi-level tiling "SSRSRS" of a block with a reduction and data reuse
// (matmul, conv2d, batch_matmul, dense): spatial loops in four levels,
// reduction loops in two, in the order S0 S1 R0 S2 R1 S3, tile sizes
// sampled. Branches on where the result is written: straight to its
// buffer, or through a local register tile written back under the S0 or S1
// tiles (the block's only injective consumer, an epilogue such as relu,
// takes the write-back's place). Each of those again with the block's
// vector operand packed (block_info.h's packable_read): a cache_read whose
// place compute_location samples. The vector axis is the last spatial
// loop; when that one has no operand to pack (conv2d's output column),
// another spatial loop that has one (the output channel, with the
// weights) makes two sketches more: its S3 tile innermost, the register
// tile and the packed operand laid out with it last (transform_layout).
//
// With a tensor intrinsic the target has (SpaceParams::tensor_intrins, best
// first) and the block computes, after MetaSchedule's
// MultiLevelTilingWithIntrin: the last spatial loop is split by the
// intrinsic's lanes and the last reduction loop by its depth, those pieces
// go innermost, the operand the lanes index is packed in the intrinsic's
// layout ([..., lanes / L, depth / D, L, D]), and the rest is tiled as
// above, with the three ways of writing the result. The block is annotated
// kTensorIntrinAnn and postprocessing tensorizes it. Only these sketches
// then: an int8 product through int32 vector multiplies is never faster.
std::vector<Schedule> multi_level_tiling(const Schedule& sch, const std::string& block, const SpaceParams& p);

// Its structure: the level of each tile, outermost first, S for spatial.
// A spatial loop is split in as many pieces as there are S levels, a
// reduction loop in as many as there are R levels, which is how a trace's
// reader (register_tile.h) tells a block's spatial tile samples from its
// reduction ones.
inline constexpr std::string_view kTileStructure = "SSRSRS";
constexpr int64_t tile_levels(char kind) {
  int64_t n = 0;
  for (char c : kTileStructure) n += c == kind;
  return n;
}
inline constexpr int64_t kSpatialTileLevels = tile_levels('S');
inline constexpr int64_t kReduceTileLevels = tile_levels('R');

// The GPU form of multi-level tiling, after MetaSchedule's for CUDA:
// "SSSRRSRS", spatial loops in five levels and reduction loops in three,
// S0 S1 S2 R0 R1 S3 R2 S4, tile sizes sampled (perfect tiles). The S0
// tiles fused are the grid (blockIdx.x), S1 virtual threads (vthread), S2
// the threads of a block (threadIdx.x). The result accumulates in a local
// register tile written back by each thread (its only injective consumer,
// an epilogue, inlined into the write-back); each operand is cached in
// shared memory per R0 tile, its copy marked for a cooperative fetch,
// which postprocessing spreads over the block's threads once the tile
// sizes are drawn.
std::vector<Schedule> multi_level_tiling_gpu(const Schedule& sch, const std::string& block, const SpaceParams& p);

// A reduction that multi-level tiling leaves alone (softmax's row maximum
// and sum, layer_norm's moments), over at least kMinCrossThreadWork
// elements, split between the threads of a block per output (the
// threads sampled as the inner factor of a perfect tile of the reduction):
// partial results in shared memory, folded after a barrier. Beside it,
// the block as it was (auto_bind gives each thread whole outputs).
inline constexpr int64_t kMinCrossThreadWork = 32;
std::vector<Schedule> cross_thread_reduction(const Schedule& sch, const std::string& block, const SpaceParams& p);

// Binds to blocks of threads every nest still unbound (tir/schedule/auto_bind.h),
// kAutoBindThreads per block, fewer where the target runs fewer.
void auto_bind_rule(Schedule& sch, const SpaceParams& p);

// Factors a reduction whose own parallelism is short (after MetaSchedule's
// add-rfactor): its reduction loops fused and split in two (sampled), and
// the reduction factored over each piece in turn, one sketch each beside
// the block as it was. Factored over the inner piece, the partial sums are
// a spatial axis that postprocessing vectorizes (softmax's row maximum and
// sum); over the outer piece, one it runs in parallel (a reduction with few
// outputs). The partial results (`<block>_rf`) are computed where a sampled
// compute location puts them. Applies to a block multi-level tiling takes
// only when its spatial loops are fewer than the cores' jobs and than its
// reduction; to any other reduction longer than the cores are many.
std::vector<Schedule> add_rfactor(const Schedule& sch, const std::string& block, const SpaceParams& p);

// The reductions that multi-level tiling would take whose output, through
// injective stages that each feed the next alone (an epilogue), only a
// block it takes reads: a MobileNet block's depthwise 3x3, read by its
// 1x1 projection (graph/fuse.h puts them in one group). In program order.
std::vector<std::string> producers_in_tiles(const PrimFunc& f);

// Computes such a producer, untiled, and its epilogue in the tiles of its
// tiled consumer (compute_at under the consumer's last S0 loop, one
// sketch, and under its last S1 loop, another): what a tile reads of the
// producer's output is computed just before, into a buffer of the tile's
// size, and never goes to memory. The producer's part has the same size
// in every tile, its rows past the image's edge predicated off
// (kCoverRegionAnn), and runs over a register tile: its last spatial loop
// vectorized, and its last one or two others (one sketch each) under its
// reduction loops, whole. Its input's padding is inlined. None where the
// consumer is not tiled.
std::vector<Schedule> compute_in_tiles(const Schedule& sch, const std::string& producer, const SpaceParams& p);

// Moves outermost, in each injective block that is not tiled (conv2d's
// padding, a layout copy), the loop whose split between threads splits
// the most of what the block reads, on a tie the longest (the innermost
// loop stays, to be vectorized): the padding stage's rows before its
// channel blocks, as multi-level tiling orders the convolution's jobs
// that read it, so that each thread pads the rows it will read.
void order_thread_split(Schedule& sch);

// Samples where each remaining injective producer of a tiled block is
// computed: inlined, at the root, or under one of its consumer's loops. A
// producer of a block tiled for a tensor intrinsic stays at the root.
void compute_location(Schedule& sch);

// Annotates the root block with what postprocessing parallelizes,
// vectorizes and unrolls (search/postproc.h), the unroll step sampled.
void parallel_vectorize_unroll(Schedule& sch, const SpaceParams& p);

// Annotation keys the rules leave on the root block for postprocessing.
inline constexpr const char* kParallelAnn = "kiln.parallel";
inline constexpr const char* kVectorizeAnn = "kiln.vectorize";
inline constexpr const char* kUnrollAnn = "kiln.unroll";
// On a block multi-level tiling has tiled, so that later rules know: the
// vector registers its register tile (the S3 level) may hold, and
// the float32 lanes of one register, which postprocessing checks the drawn
// tiles against.
inline constexpr const char* kTiledAnn = "kiln.tiled";
inline constexpr const char* kLanesAnn = "kiln.lanes";
// On a block tiled for a tensor intrinsic (a string, its name): its last
// loops are the intrinsic's, which postprocessing tensorizes once the init
// has left the block; kLanesAnn is then 1 (a step of the loop outside the
// intrinsic's lanes is one vector register).
inline constexpr const char* kTensorIntrinAnn = "kiln.tensor_intrin";
// On a tiled block whose vector axis is not its last spatial loop: which
// spatial loop (counted in loop order) is, its S3 tile placed innermost.
inline constexpr const char* kVectorAxisAnn = "kiln.vector_axis";
// On a GPU: the root's threads and shared memory per block, which
// postprocessing checks each draw against; on a shared-memory copy, that it is
// fetched by all the block's threads together.
inline constexpr const char* kGpuThreadsAnn = "kiln.gpu_threads";
inline constexpr const char* kGpuSharedAnn = "kiln.gpu_shared_bytes";
inline constexpr const char* kCooperativeFetchAnn = "kiln.cooperative_fetch";

}  // namespace kiln::search
