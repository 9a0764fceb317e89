#include "search/register_designs.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

#include "core/error.h"
#include "search/block_info.h"
#include "search/register_tile.h"
#include "search/rules/rules.h"
#include "search/sample.h"
#include "search/transfer.h"
#include "tir/schedule/dataflow.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

// Register tile shapes, most promising first: vectors per row, and the
// rows a second axis takes (1: all rows on one axis). Two vectors leave
// rows enough to hide the FMA latency on both ISAs (6 x 2 ymm, 14 x 2
// zmm). Rows on two axes share each broadcast operand across more
// vectors: on conv2d 64→64 56² (AVX2), 4 output channels x 3 output rows
// of one vector ran at 120 GFLOP/s and 6 x 2 at 121, where 12 x 1 ran at
// 104 (Zen 3, first measurements of one job); on 512→512 7², whose 7-wide
// rows make one vector of 7 lanes, 6 x 1 ran at 68 and 4 x 3 at 26.
struct TileShape {
  int64_t vectors, second_rows;
};
constexpr TileShape kShapes[] = {{2, 1}, {1, 3}, {1, 2}, {1, 1}, {2, 2}, {3, 1}, {4, 1}};

// Window shapes (sized_window): one vector, and the rows of an axis that
// a reduction slides along. On conv2d 64→64 56² (Zen 3, AVX2, one
// process), 2 output channels x 4 output rows ran at 151-158 GFLOP/s,
// 1 x 8 (TVM MetaSchedule's best of 1000 trials) at 145-150, and the
// designs of kShapes at 116-120; 3 x 4, its channels in a partial tile
// (22 x 3 of 64), at 94.
constexpr int64_t kWindowRows[] = {4, 8};

// The loop extent a drawn tile decision covers (at least the extent).
int64_t covered_by(const Trace& t, size_t i) {
  return tile_product(*tile_factors(t.instructions()[i]));
}

// The height of the register tiles that cover `extent` rows in as few
// tiles as a height of `most` allows, made as even as they can be: 7 rows
// at most 6 high as 4 + 3, not 6 + 1, and never a tile taller than the
// axis (12 rows for 7). On conv2d 512→512 7² (Zen 3), the output-channel
// vector over 7 rows of one tile ran at 1.3× the best design of 1000
// trials, whose rows were 12 high.
int64_t even_rows(int64_t extent, int64_t most) {
  const int64_t tiles = (extent + most - 1) / most;
  return (extent + tiles - 1) / tiles;
}

// The auto-unroll step the designs take: the register tile's loops must be
// unrolled for its accumulators to live in registers, and 64 covers 28
// of them (AVX-512) without unrolling whole reductions.
constexpr int64_t kUnrollStep = 64;

// The extent of the loop each tile sample of `design` tiles, by
// instruction index (0 for other instructions): a drawn partial tile
// covers more than its loop. Read once per draw, since each costs a replay
// of the design up to the tile.
std::vector<int64_t> tile_extents(const PrimFunc& f, const Trace& design) {
  std::vector<int64_t> out(design.size(), 0);
  for (const RegisterTile& tile : register_tiles(design))
    for (size_t i : tile.tiles) {
      const std::optional<int64_t> extent = tiled_extent(f, design, i);
      out[i] = extent ? *extent : covered_by(design, i);
    }
  return out;
}

// Whether `b` is one of the parameters `constants` names (a model's
// weights), by position.
bool is_constant_param(const PrimFunc& f, const Buffer& b, const std::vector<int>& constants) {
  return std::any_of(constants.begin(), constants.end(), [&](int c) {
    return c >= 0 && static_cast<size_t>(c) < f.params().size() && f.params()[static_cast<size_t>(c)].same_as(b);
  });
}

// Whether the copy `info` copies one of the parameters `constants` names:
// at the root it is a pack that a compiled model runs once, on the weights
// (search/rewrite_layout.h), where under the tiles it packs each panel in
// every call; the kernel reads the two alike.
bool copies_a_constant(const PrimFunc& f, const BlockInfo& info, const std::vector<int>& constants) {
  return info.is_copy && info.block->reads.size() == 1 &&
         is_constant_param(f, info.block->reads[0].buffer(), constants);
}

// Whether `read` holds one of the parameters `constants` names: the
// parameter itself, or a copy of it (a packed panel) a block of `f` makes.
bool holds_a_constant(const PrimFunc& f, const Buffer& read, const std::vector<int>& constants) {
  if (is_constant_param(f, read, constants)) return true;
  for (const std::string& name : blocks_in_order(f)) {
    const BlockNode* writer = block_of(locate_block(f.body(), name)->stmt);
    if (std::any_of(writer->writes.begin(), writer->writes.end(),
                    [&](const BufferRegion& w) { return w.buffer().same_as(read); }))
      return copies_a_constant(f, block_info(f, name), constants);
  }
  return false;
}

// What a register tile's loops are to its block: for each reduction tile
// sample (tile.reductions), the index in tile.tiles of the spatial tile it
// slides along (sliding_along, block_info.h), or -1; and for each spatial
// tile, whether the vector operand (the read packing copies for the vector
// axis, packable_read) leaves it out, so that every step along it reads
// the same vectors (a 1x1 convolution's output pixels, reading the same
// weights). And whether the vector operand holds one of `constants` (a
// model's weights), the bytes of its buffer and of the block's other reads
// (the input; not the output it accumulates into). And for each spatial
// tile, whether every other read leaves it out (`shared`: the input of a
// convolution leaves out its output-channel blocks, so that one broadcast
// element serves a row of them). All -1, false and 0 when the design's
// first instructions do not replay on `f`.
struct TileAxes {
  std::vector<int> sliding;
  std::vector<bool> free, shared;
  bool operand_constant = false;
  double operand_bytes = 0, other_bytes = 0;
};

TileAxes tile_axes(const PrimFunc& f, const Trace& design, const RegisterTile& tile,
                   const std::vector<int>& constants) {
  TileAxes out{std::vector<int>(tile.reductions.size(), -1), std::vector<bool>(tile.tiles.size(), false),
               std::vector<bool>(tile.tiles.size(), false)};
  size_t first = design.size();
  for (size_t i : tile.tiles) first = std::min(first, i);
  for (size_t i : tile.reductions) first = std::min(first, i);
  Trace before;
  for (size_t k = 0; k < first; ++k) before.append(design.instructions()[k]);
  Schedule sch(f);
  std::vector<int> bound;
  try {
    before.apply(sch);
    std::vector<Var> loops;
    auto loop_of = [&](size_t i) {
      const RV* rv = std::get_if<RV>(&design.instructions()[i].inputs.at(0));
      const std::optional<RV> here = rv ? replayed_handle(sch, before, *rv) : std::nullopt;
      if (!here) KILN_USER_ERROR() << "tile sample " << i << " tiles no loop the design made";
      loops.push_back(sch.loop_var(LoopRV{here->id}));
    };
    for (size_t i : tile.tiles) loop_of(i);
    for (size_t i : tile.reductions) loop_of(i);
    bound = bound_iter_vars(sch.func(), tile.block, loops);
  } catch (const Error&) {
    return out;
  }
  const std::vector<int> along = sliding_along(sch.func(), tile.block);
  for (size_t r = 0; r < tile.reductions.size(); ++r) {
    const int iter_var = bound[tile.tiles.size() + r];
    if (iter_var < 0 || along[static_cast<size_t>(iter_var)] < 0) continue;
    for (size_t k = 0; k < tile.tiles.size(); ++k)
      if (bound[k] == along[static_cast<size_t>(iter_var)]) out.sliding[r] = static_cast<int>(k);
  }
  const int vector_var = bound[tile.vector_tile];
  const std::optional<PackableRead> operand =
      vector_var < 0 ? std::nullopt : packable_read(sch.func(), tile.block, static_cast<size_t>(vector_var));
  if (!operand) return out;
  const std::vector<bool> uses = read_uses(sch.func(), tile.block, static_cast<size_t>(operand->read));
  for (size_t k = 0; k < tile.tiles.size(); ++k)
    out.free[k] = bound[k] >= 0 && !uses[static_cast<size_t>(bound[k])];
  const BlockNode* b = block_of(locate_block(sch.func().body(), tile.block)->stmt);
  for (size_t k = 0; k < tile.tiles.size(); ++k) out.shared[k] = bound[k] >= 0;
  for (size_t r = 0; r < b->reads.size(); ++r) {
    const Buffer& read = b->reads[r].buffer();
    const bool written = std::any_of(b->writes.begin(), b->writes.end(),
                                     [&](const BufferRegion& w) { return w.buffer().same_as(read); });
    if (static_cast<int>(r) == operand->read) {
      out.operand_bytes += buffer_bytes(read);
    } else if (!written) {
      out.other_bytes += buffer_bytes(read);
      const std::vector<bool> other_uses = read_uses(sch.func(), tile.block, r);
      for (size_t k = 0; k < tile.tiles.size(); ++k)
        out.shared[k] = out.shared[k] && !other_uses[static_cast<size_t>(bound[k])];
    }
  }
  out.operand_constant = holds_a_constant(sch.func(), b->reads[static_cast<size_t>(operand->read)].buffer(), constants);
  return out;
}

// The largest divisor of `extent` up to `most`.
int64_t divisor_up_to(int64_t extent, int64_t most) {
  int64_t d = std::max<int64_t>(1, std::min(extent, most));
  while (extent % d) --d;
  return d;
}

// Rows of one pixel axis of `extent` where `most` fit in the registers: a
// divisor of the extent where one is more than half of `most` (no partial
// tile, and most of the registers used), else rows as even as the axis
// allows (even_rows: 7 as 4 + 3). On a 1x1 convolution at 56² (Intel
// Xeon, AVX-512) 4 x 7 spilled, and 4 x 5 and 4 x 6, partial there, ran
// slower than 4 x 4; 14 rows at most 4 high (the wide channel shape on
// AVX2) are 4 + 4 + 4 + 2, not 2 x 7: 3 x 2 accumulators cannot hide an
// FMA's latency.
int64_t divisor_or_even_rows(int64_t extent, int64_t most) {
  const int64_t rows = divisor_up_to(extent, most);
  return 2 * rows > most ? rows : even_rows(extent, most);
}

// The lanes of a register tile's vector tile: the widest divisor of the
// vector axis up to `vectors` vectors that fills whole registers, else
// whole 256-bit halves of an AVX-512 register, else the widest divisor
// (7-wide rows make one vector of 7 lanes, not 7 of one). Conv2d 56²'s
// 56 output columns on AVX-512 so make vectors of 8, not of 14, which
// LLVM splits into 8 + 4 + 2: TVM MetaSchedule's best of 1000 trials on
// a Zen 4, 4 output channels x 4 output rows x 8 columns, is a window
// shape of 8-lane vectors.
int64_t vector_width(int64_t extent, int64_t lanes, int64_t vectors) {
  const int64_t most = lanes * vectors;
  for (int64_t unit : {lanes, lanes / 2}) {
    if (unit < 8 && unit != lanes) continue;  // a half of an AVX2 register is not a register of its own here
    for (int64_t w = most / unit * unit; w >= unit; w -= unit)
      if (extent % w == 0) return w;
  }
  return divisor_up_to(extent, most);
}

// Whether the design has an instruction of `kind`.
bool has_instruction(const Trace& design, const InstructionKind* kind) {
  for (const Instruction& inst : design.instructions())
    if (inst.kind == kind) return true;
  return false;
}

// Whether the design writes its register tiles back under a tile (a
// cache_write, or an epilogue, computed at one): a tile accumulated in
// place, in the output, around reduction loops outside it, is loaded and
// stored on every step (conv2d 56²'s window shapes ran at 59 GFLOP/s so).
bool writes_back(const Trace& design) { return has_instruction(design, &inst::reverse_compute_at); }

// Whether the design packs an operand (a cache_read).
bool packs(const Trace& design) { return has_instruction(design, &inst::cache_read); }

// Where a packed copy read by the tiled block `consumer` goes in a design,
// as a compute location (a loop index above `consumer`, or kRoot): under
// the outermost of its `s0` S0 loops up to the first one (of more than one
// iteration) that the copy's region does not change with, which would make
// it again, the same, on every iteration: a panel of packed weights under
// its panel's loop. Other producers (padding) go to the root, computed
// once: under a loop, the windows of neighbouring tiles overlap and are
// computed again. (Both under the last S0 loop, as first written, packed
// the weights again for every row and column tile and padded the input
// again for every panel: 24 GFLOP/s against 52 on conv2d 512→512 7², Zen 3.)
int64_t panel_location(const PrimFunc& scheduled, const std::string& consumer, const std::string& producer,
                       size_t s0) {
  const std::vector<bool> changes = read_changes_with_loops(scheduled, consumer, producer);
  const std::vector<Stmt> loops = enclosing_loops(*locate_block(scheduled.body(), consumer));
  int64_t at = LocationDecision::kRoot;
  for (size_t l = 0; l < s0 && l < loops.size(); ++l) {
    const int64_t* extent = as_const_int(loops[l].as<ForNode>()->extent);
    if (extent && *extent == 1) continue;
    if (!changes[l]) break;
    at = static_cast<int64_t>(l);
  }
  return at;
}

// The S3 rows of a register tile, by index into its tiles, and whether
// the tiles of each axis loop in S1 (inside each parallel job) rather
// than S0 (or, for a reduction-blocked shape, how many loop in S2).
struct Rows {
  std::vector<int64_t> s3;
  std::vector<bool> in_s1;
  std::vector<int64_t> s2 = {};  // a reduction-blocked shape's S2 tiles (0: none), else empty
  // The axis whose S3 loop goes inside the others' (just outside the
  // vector loop) rather than in the block's axis order; none: that order.
  std::optional<size_t> innermost = {};
};

// The accumulators a register tile of `vectors` vectors per row may keep:
// besides them, each row's vectors are loaded into registers and one
// operand is broadcast, and the budget leaves 4 registers for that
// (SpaceParams::accumulator_registers), so past 3 vectors each one more
// takes an accumulator's place. 7 rows x 4 zmm (28 accumulators, 4 loaded
// vectors and a broadcast: 33 of AVX-512's 32 registers) spill: matmul
// 1024³'s hand schedule with 7-row tiles ran 205-218 GFLOP/s where its 6
// rows ran 210-224, in the same minutes (AMD EPYC Zen 4, 2 threads).
int64_t accumulator_budget(int64_t budget, int64_t vectors) { return std::min(budget, budget + 3 - vectors); }

// kShapes' rows: up to accumulator_budget / vectors (even_rows) on the largest spatial
// axis but the vector one, or `second_rows` of them on the next largest
// and the rest on the largest (at most streaming_rows, where that is
// set); nullopt when there is no second axis.
std::optional<Rows> shape_rows(const RegisterTile& tile, const std::vector<int64_t>& extents, int64_t vectors,
                               int64_t second_rows, int64_t streaming_rows = 0) {
  std::optional<size_t> row, row2;
  for (size_t k = 0; k < extents.size(); ++k)
    if (k != tile.vector_tile && extents[k] > (row ? extents[*row] : 1)) row = k;
  if (second_rows > 1) {
    for (size_t k = 0; k < extents.size(); ++k)
      if (k != tile.vector_tile && k != row && extents[k] >= second_rows && extents[k] > (row2 ? extents[*row2] : 1))
        row2 = k;
    if (!row2) return std::nullopt;  // no second axis to take rows
  }
  Rows out{std::vector<int64_t>(extents.size(), 1), std::vector<bool>(extents.size(), false)};
  for (std::optional<size_t> k : {row, row2})
    if (k) out.in_s1[*k] = true;
  const int64_t most =
      streaming_rows > 0 ? streaming_rows
                         : std::max<int64_t>(1, accumulator_budget(tile.budget, vectors) / vectors / second_rows);
  if (row) out.s3[*row] = even_rows(extents[*row], most);
  if (row2) out.s3[*row2] = second_rows;
  return out;
}

// A window shape's rows (kWindowRows): up to `window_rows` dividing the
// largest axis but the vector one that a reduction slides along (conv2d's
// output rows, which the filter rows slide along), its tiles in S0; and
// up to the registers left dividing the largest other axis (the output
// channels), whose whole extent then runs in S1, inside each parallel job,
// over the same window of input. nullopt when no reduction slides along an
// axis of more than one row.
std::optional<Rows> window_rows(const RegisterTile& tile, const std::vector<int64_t>& extents,
                                const std::vector<int>& sliding, int64_t window_rows) {
  std::optional<size_t> window, other;
  for (int k : sliding)
    if (k >= 0 && static_cast<size_t>(k) != tile.vector_tile && extents[k] > (window ? extents[*window] : 1))
      window = static_cast<size_t>(k);
  if (!window) return std::nullopt;
  for (size_t k = 0; k < extents.size(); ++k)
    if (k != tile.vector_tile && k != window && extents[k] > (other ? extents[*other] : 1)) other = k;
  Rows out{std::vector<int64_t>(extents.size(), 1), std::vector<bool>(extents.size(), false)};
  out.s3[*window] = divisor_up_to(extents[*window], window_rows);
  if (out.s3[*window] < 2) return std::nullopt;
  if (other) {
    out.s3[*other] = divisor_up_to(extents[*other], std::max<int64_t>(1, tile.budget / out.s3[*window]));
    out.in_s1[*other] = true;
  }
  return out;
}

// What a design's register tiles are sized by: a kShapes entry (vectors,
// second_rows), or a window shape (one vector, window > 0 rows); with
// streaming_rows > 0, a weight-streaming shape (sized, below) of at most
// that many rows on the largest axis; with channel_rows > 0, a channel
// shape (channel_rows, below) over `pixel_axes` axes of pixels.
struct Sizing {
  int64_t vectors = 1, second_rows = 1, window = 0, streaming_rows = 0;
  // A window shape's padding inlined into the window's loads instead of
  // copied per tile: once partition_loops (tir/transform/partition_loops.h)
  // splits the border tiles off, the interior ones load the input where it
  // lies. A depthwise 3×3 on 144 channels at 56² (Zen 5, 2 threads) ran at
  // 302 GFLOP/s so and at 181 with the tuned design's per-tile copy.
  bool inline_padding = false;
  int64_t channel_rows = 0, pixel_axes = 1;
  // The pixel loops outside the channel blocks' (Rows::innermost): on a
  // channel shape (channel_rows, kWideChannels), its channel tiles partial
  // where they do not divide; on a streaming one, the wide
  // reduction-blocked shape (blocked_rows, kBlockedWideRows), 1x1 layers'
  // only.
  bool pixels_outside = false;
};

// The weight-streaming shapes: one vector, 3 rows on the second axis, and
// 2 or 4 on the first.
constexpr int64_t kStreamingSecondRows = 3;
constexpr int64_t kStreamingRows[] = {2, 4};

// The reduction-blocked shapes (the other half of sized's streaming
// designs): the reduction elements the inner reduction loops take per step
// of the outer ones (at most; what divides the reduction), the least
// reduction that makes such a design (kBlockedLeastChunks of them), and
// the accumulators (vectors) the S2 tiles may hold in memory between
// steps: 16 KB on AVX-512, in the L1 beside a step's weights. Two chunks,
// not four: mobilenet_v2's 160->960 at 7² (Intel Xeon, model 167, 2
// threads), whose 160 channels made no such design, ran at 0.069 ms at
// best among the first 16 designs and at 0.051 in 5 chunks of 32.
constexpr int64_t kBlockedChunk = 64;
constexpr int64_t kBlockedLeastChunks = 2;
constexpr int64_t kBlockedAccumulators = 256;

// The wide reduction-blocked shape (Sizing::pixels_outside on a streaming
// sizing): 4 output-channel blocks, the pixel loops outside them, as many
// pixels of a row as the registers hold beside the 4 weight vectors (4 x 7
// on AVX-512: 28 accumulators, 4 weight vectors and a broadcast, one
// register over, which LLVM spills once per 28 FMAs), over chunks of 128
// channels (32 KB of weights on AVX-512, in the L1). oneDNN's 1x1 kernel
// blocks the reduction in 256 channels at 7² (its init_conf); on
// resnet50's 7² layers (Intel Xeon, model 167, 2 threads; `kiln_bench`,
// the designs edited by hand beside oneDNN in one process, 5-7 rounds,
// three runs) this shape ran at 0.981-0.999 of oneDNN on 2048→512 and
// 0.970-1.002 on 512→2048, where the best of 400 trials ran 0.941-0.968
// and 0.958-0.960 (2 blocks x 7); chunks of 64 ran 0.974-1.000 and
// 0.952-0.981, 3 blocks (a partial last tile) 0.86-0.93, oneDNN's own
// 3 blocks over 256 channels 0.87-0.90.
constexpr int64_t kBlockedWideRows = 4;
constexpr int64_t kBlockedWideChunk = 128;

// A reduction-blocked shape's rows, for a block that no reduction slides
// along (a 1x1 convolution): up to `first_rows` rows on the largest axis
// that the vector operand reads (the output-channel blocks, TileAxes::free
// false), as many as the registers left allow on the largest axis it
// leaves out (the output pixels; the later one on a tie, whose rows are
// contiguous), and in S2 the tiles of that axis and then of the other
// free axes, outward, up to kBlockedAccumulators accumulators. nullopt
// without both kinds of axis. With `pixels_outside` (the wide shape,
// kBlockedWideRows), the pixel loop runs outside the channel rows'
// (Rows::innermost) and takes as many pixels as the registers hold beside
// the rows' weight vectors, the broadcast one over (divisor_or_even_rows):
// 4 x 7 on AVX-512, 4 x 3 on AVX2.
std::optional<Rows> blocked_rows(const RegisterTile& tile, const std::vector<int64_t>& extents,
                                 const std::vector<bool>& free, int64_t first_rows, bool pixels_outside = false) {
  std::optional<size_t> bound, row;
  for (size_t k = 0; k < extents.size(); ++k) {
    if (k == tile.vector_tile || extents[k] < 2) continue;
    if (free[k]) {
      if (!row || extents[k] >= extents[*row]) row = k;
    } else if (!bound || extents[k] > extents[*bound]) {
      bound = k;
    }
  }
  if (!bound || !row) return std::nullopt;
  const size_t n = extents.size();
  Rows out{std::vector<int64_t>(n, 1), std::vector<bool>(n, false), std::vector<int64_t>(n, 0)};
  const int64_t rows = std::min(first_rows, extents[*bound]);
  out.s3[*bound] = rows;
  out.in_s1[*bound] = true;
  if (pixels_outside) {
    // Every register but the weight vectors' holds an accumulator: the
    // broadcast takes one more, spilled once per row of FMAs.
    out.s3[*row] = divisor_or_even_rows(extents[*row], std::max<int64_t>(1, (tile.budget + 4 - rows) / rows));
    out.innermost = *bound;
  } else {
    out.s3[*row] = even_rows(extents[*row], std::max<int64_t>(1, (tile.budget - rows) / rows));
  }
  int64_t room = std::max<int64_t>(1, kBlockedAccumulators / (out.s3[*row] * rows));
  std::vector<size_t> outward{*row};
  for (size_t k = n; k-- > 0;)
    if (k != *row && k != tile.vector_tile && free[k] && extents[k] > 1) outward.push_back(k);
  for (size_t k : outward) {
    out.s2[k] = std::min(covering_outer(extents[k], {out.s3[k]}), room);
    room = std::max<int64_t>(1, room / out.s2[k]);
  }
  return out;
}

// The most rows a register tile of `channels` channel rows may take.
// K-major, as the tiles loop in the block's axis order (channel blocks
// outside the pixels), each row's broadcast stays live across the channel
// rows: channels x rows accumulators, `channels` loaded vectors and `rows`
// broadcasts. With the pixels outside, each broadcast serves the channel
// rows in turn and dies: channels x rows accumulators, `channels` vectors
// and one broadcast. Either in the budget + 4 registers (the budget's
// operand registers with them).
int64_t most_rows_beside(int64_t channels, int64_t budget, bool pixels_outside = false) {
  return pixels_outside ? (budget + 3 - channels) / channels : (budget + 4 - channels) / (channels + 1);
}

// The rows of one pixel axis of `extent` beside `channels` channel rows
// (divisor_or_even_rows of what fits, most_rows_beside); 0 where none fits.
int64_t rows_beside_channels(int64_t extent, int64_t channels, int64_t budget, bool pixels_outside = false) {
  const int64_t most = most_rows_beside(channels, budget, pixels_outside);
  return most < 1 ? 0 : divisor_or_even_rows(extent, most);
}

// The channel shapes: output-channel blocks per register tile, and the
// pixel axes their rows take (one axis, or two of 2 rows each).
constexpr int64_t kChannelRows = 4;
constexpr int64_t kChannelPixelAxes[] = {2, 1};

// The wide channel shape: 3 output-channel blocks (the last tile partial
// where they do not divide: 8 blocks as 3 + 3 + 2), the pixels outside
// them, and as many pixels of one axis as the registers then hold: 3 x 8
// at 56², 3 x 7 at 28², 14² and 7² on AVX-512, oneDNN's own 1x1 tiles
// (its jit_1x1 kernels, dumped with ONEDNN_JIT_DUMP, on resnet50's
// 256→128 at 56² and 256→1024 at 14²). Each weight vector then serves 7-8
// pixels, where 4 x 2 x 2 reads each for 4: on 256→128 at 56², whose 4
// blocks' weights (64 KB) outgrow the Xeon's 48 KB L1, 3 x 8 ran at
// 0.615-0.621 ms and 3 x 7 at 0.615-0.624 against 0.629-0.636 for the
// best of 400 trials (4 x 2 x 2), three alternating runs each (Intel
// Xeon, model 167, 2 threads). In the block's axis order the same tiles
// keep every pixel's broadcast live across the blocks: 3 x 7 ran 0.640,
// and 2 x 14 spilled (1.23-1.26 ms against 0.676 with the pixels outside).
// Searched with it (400 trials, the same seed), 256→128 at 56² went from
// 0.909 to 1.010 of oneDNN and 256→1024 at 14² from 0.905 to 0.980, both
// on wide designs (docs/tuner.md, "The wide channel shape").
constexpr int64_t kWideChannels = 3;

// A channel shape's rows, for a block that no reduction of more than one
// step slides along (a 1x1 convolution): up to `channels` rows (dividing
// it) on the largest axis that the vector operand reads and every other
// read leaves out (the output-channel blocks, which share each broadcast
// input element), in S0; and on the largest axes the vector operand
// leaves out (the output pixels, the first on a tie), in S1, 2 rows on
// each of two, or on one as many as fit beside the channel rows
// (rows_beside_channels: 4 x 4 in AVX-512's 32 registers, 16
// accumulators + 4 weight vectors + 4 broadcasts). kShapes put
// their rows on the pixels alone, one channel block per tile, so every
// FMA loads a broadcast: on resnet50's 1x1 layers (Intel Xeon, model 167,
// 2 threads) they stayed at 316-330 GFLOP/s where oneDNN's 1x1 kernel
// ran at 331-356; 64→256 at 56² ran at 0.318 ms as its best of 400
// trials (28 pixels x 1 block), at 0.297-0.300 as 4 blocks x 4 rows and
// 0.295 as 4 blocks x 2 x 2 pixels, oneDNN at 0.289. nullopt without
// such axes or where the registers leave no row.
//
// With `pixels_outside` (the wide shape, kWideChannels), the channel rows
// need not divide their axis, the pixel loops run outside theirs
// (Rows::innermost), and the rows go on the largest pixel axis, the later
// one on a tie (a row's pixels then lie side by side).
std::optional<Rows> channel_rows(const RegisterTile& tile, const std::vector<int64_t>& extents, const TileAxes& axes,
                                 int64_t channels, int64_t pixel_axes, bool pixels_outside = false) {
  std::optional<size_t> bound;
  std::vector<size_t> pixels;  // largest first
  for (size_t k = 0; k < extents.size(); ++k) {
    if (k == tile.vector_tile || extents[k] < 2) continue;
    if (axes.free[k]) pixels.push_back(k);
    else if (axes.shared[k] && (!bound || extents[k] > extents[*bound])) bound = k;
  }
  std::stable_sort(pixels.begin(), pixels.end(), [&](size_t a, size_t b) {
    return extents[a] > extents[b] || (pixels_outside && extents[a] == extents[b] && a > b);
  });
  if (!bound || pixels.size() < static_cast<size_t>(pixel_axes)) return std::nullopt;
  const int64_t c = pixels_outside ? std::min(channels, extents[*bound]) : divisor_up_to(extents[*bound], channels);
  const int64_t rows = rows_beside_channels(extents[pixels[0]], c, tile.budget, pixels_outside);
  const bool two_by_two_fits = most_rows_beside(c, tile.budget) >= 4;  // 4 pixels' broadcasts live, as 4 rows'
  if (c < 2 || rows < 2 || (pixel_axes == 2 && !two_by_two_fits)) return std::nullopt;
  Rows out{std::vector<int64_t>(extents.size(), 1), std::vector<bool>(extents.size(), false)};
  out.s3[*bound] = c;
  if (pixels_outside) out.innermost = *bound;
  if (pixel_axes == 2) {
    for (size_t a = 0; a < 2; ++a) {
      out.s3[pixels[a]] = 2;
      out.in_s1[pixels[a]] = true;
    }
    return out;
  }
  out.s3[pixels[0]] = rows;
  out.in_s1[pixels[0]] = true;
  return out;
}

// `design` with `tile`'s S3 loop of axis `axis` moved inside its other
// S3 loops, just outside the vector loop, in the reorder that orders the
// tile's loops (multi_level_tiling's): on a 1x1 convolution, the channel
// blocks inside the pixels, so that each pixel's broadcast serves every
// block in turn and dies (kWideChannels). nullopt where no reorder holds
// the tile's S3 loops.
std::optional<Trace> with_s3_inside(const Trace& design, const RegisterTile& tile, size_t axis) {
  const std::vector<Instruction>& insts = design.instructions();
  // Each tile sample's S3 loop: the last loop of the split that takes it.
  auto s3_loop = [&](size_t sample) -> std::optional<RV> {
    const std::vector<RV>& factors = insts[sample].outputs;
    for (size_t j = sample + 1; j < insts.size(); ++j) {
      if (insts[j].kind != &inst::split) continue;
      const std::vector<InstInput>& in = insts[j].inputs;
      if (std::any_of(in.begin(), in.end(), [&](const InstInput& x) {
            const RV* rv = std::get_if<RV>(&x);
            return rv && std::find(factors.begin(), factors.end(), *rv) != factors.end();
          }))
        return insts[j].outputs.empty() ? std::nullopt : std::optional<RV>(insts[j].outputs.back());
    }
    return std::nullopt;
  };
  std::vector<RV> s3;
  for (size_t i : tile.tiles) {
    const std::optional<RV> l = s3_loop(i);
    if (!l) return std::nullopt;
    s3.push_back(*l);
  }
  for (size_t j = 0; j < insts.size(); ++j) {
    if (insts[j].kind != &inst::reorder) continue;
    std::vector<size_t> at;  // where each S3 loop stands in the reorder
    for (const RV& l : s3)
      for (size_t p = 0; p < insts[j].inputs.size(); ++p)
        if (const RV* rv = std::get_if<RV>(&insts[j].inputs[p]); rv && *rv == l) at.push_back(p);
    if (at.size() != s3.size()) continue;
    std::vector<size_t> slots = at;  // the positions the S3 loops take, in order
    std::sort(slots.begin(), slots.end());
    std::vector<size_t> order;  // tile indices, outer to inner
    for (size_t p : slots)
      for (size_t k = 0; k < at.size(); ++k)
        if (at[k] == p && k != axis && k != tile.vector_tile) order.push_back(k);
    order.push_back(axis);
    order.push_back(tile.vector_tile);
    if (order.size() != slots.size()) return std::nullopt;
    Trace out;
    for (size_t i = 0; i < insts.size(); ++i) {
      Instruction inst = insts[i];
      if (i == j)
        for (size_t q = 0; q < slots.size(); ++q) inst.inputs[slots[q]] = s3[order[q]];
      out.append(std::move(inst));
    }
    return out;
  }
  return std::nullopt;
}

// `design` with each tiled block's S3 tiles sized by `sizing` (shape_rows
// or window_rows), the vector tile up to `vectors` vectors wide (the widest
// divisor of the vector axis), every other S3 tile 1; `extent_of` is
// tile_extents(f, design) and `axes_of` tile_axes of each of its
// register tiles. Around it, the loops of a BLIS macro-kernel
// (and of examples/schedules/matmul_1024_avx2.json): the
// panels of the vector axis and every other axis in S0 (postprocessing
// runs them in parallel, and a packed operand computed there is packed
// once per panel), the rows' register tiles in S1 (in S0, and the panels
// in S1, where the threads split an output's pixels: below), no S2 tiles, and each
// reduction axis in one loop (its inner tile 1) around the register tile,
// as in BLIS's micro-kernel, except one that slides along an axis with
// rows, which goes inside (its outer tile 1): its steps then reuse the
// rows loaded, unrolled with them (on conv2d 56², TVM's best design ran
// at 97 GFLOP/s with the filter rows outside and at 146 inside); and the
// auto-unroll step at kUnrollStep. (A reduction split in two nested loops
// around a partial register tile, whose last rows are predicated, kept
// LLVM from holding the accumulators in registers: 6 x 16 on matmul 1024
// ran at 0.45 of OpenBLAS with k as 16 x 64, and at 0.99 with k whole, on
// a Zen 3.) Decisions that no longer fit their loop are mended by
// transfer_design (a row tile's outermost is inferred).
//
// With sizing.streaming_rows, a design for layers whose weights stream: the
// row tiles of an axis that a reduction slides along (a convolution's
// output rows) go in S2, inside the outer reduction loops, so that each
// chunk of weights those loops read serves every row tile before the next
// comes; the other row axis (the output-channel blocks) splits its tiles
// between S0 and S1 (up to 4 in S1), so that the parallel jobs are many;
// the first reduction that slides along nothing (the input-channel blocks)
// puts 2 of its steps inside, the others stay as above. In S1, every row
// tile ran the whole reduction and read all the weights again. On layer4
// of resnet18 (512→512 7², 9.4 MB of weights; AMD EPYC Zen 4, weights
// warm), 128-trial searches with seeds 4-7 ended at 1.03-1.05 ms with
// these designs and at 1.05-1.32 ms without them.
//
// Where no reduction slides along a row axis (a 1x1 convolution), the
// streaming design is reduction-blocked instead (blocked_rows): the
// reduction loops step kBlockedChunk elements at a time outside the S2
// tiles of the axes the weights leave out (the output pixels), so that a
// chunk of weights, read once, serves them all, their accumulators kept
// in memory between chunks, as BLIS's kc loop keeps C. On resnet50's
// 2048→512 at 7² (4 MB of weights; AMD EPYC Zen 5, 2 threads), 7 output
// pixels x 2 channel blocks so ran at 497 GFLOP/s, where the best of 400
// trials, its whole reduction over each register tile of 7 pixels
// (weights read seven times), ran at 426 with a copy of the weights per
// job and at 233 without. nullopt where neither form applies (a matmul:
// every row axis reads the weights or none does).
std::optional<Trace> sized(const PrimFunc& f, const Trace& design, const std::vector<int64_t>& extent_of,
                           const std::vector<TileAxes>& axes_of, const Sizing& sizing,
                           const std::vector<int>& constants) {
  Trace out = design;
  const TraceDefs defs(design);
  for (size_t a = 0; a < design.size(); ++a) {
    // The unroll annotation, and the categorical draw that gives its value.
    const Instruction& ann = design.instructions()[a];
    if (ann.kind != &inst::annotate || std::get<AnnotateAttrs>(ann.attrs).key != kUnrollAnn) continue;
    const std::optional<TraceDefs::Def> draw = defs.def_of_input(a, 1);
    if (!draw || design.instructions()[draw->instruction].kind != &inst::sample_categorical) continue;
    const std::vector<int64_t>& steps =
        std::get<CategoricalAttrs>(design.instructions()[draw->instruction].attrs).candidates;
    for (size_t k = 0; k < steps.size(); ++k)
      if (steps[k] == kUnrollStep)
        out = out.with_decision(draw->instruction, CategoricalDecision{static_cast<int64_t>(k)});
  }
  const std::vector<RegisterTile> tiles = register_tiles(design);
  for (size_t t = 0; t < tiles.size(); ++t) {
    const RegisterTile& tile = tiles[t];
    std::vector<int64_t> extents;
    for (size_t i : tile.tiles) extents.push_back(extent_of[i]);
    const std::vector<int>& sliding = axes_of[t].sliding;
    std::optional<Rows> rows = sizing.window > 0 ? window_rows(tile, extents, sliding, sizing.window)
                               : sizing.channel_rows > 0
                                   ? channel_rows(tile, extents, axes_of[t], sizing.channel_rows, sizing.pixel_axes,
                                                  sizing.pixels_outside)
                                   : shape_rows(tile, extents, sizing.vectors, sizing.second_rows, sizing.streaming_rows);
    if (!rows) return std::nullopt;
    if (sizing.channel_rows > 0)  // a window of more than one step has window shapes of channels and rows
      for (size_t r = 0; r < tile.reductions.size(); ++r)
        if (sliding[r] >= 0 && covered_by(design, tile.reductions[r]) > 1) return std::nullopt;
    auto slid_along = [&](size_t k) {
      return std::find(sliding.begin(), sliding.end(), static_cast<int>(k)) != sliding.end();
    };
    const bool streaming = sizing.streaming_rows > 0;
    std::optional<size_t> split_channels;  // streaming: the reduction 2 of whose steps go inside
    if (streaming) {
      // A window of one step (a 1x1 filter's rows) slides over nothing.
      bool any_in_s2 = false, any_window = false;
      for (size_t r = 0; r < tile.reductions.size(); ++r)
        any_window = any_window || (sliding[r] >= 0 && covered_by(design, tile.reductions[r]) > 1);
      for (size_t k = 0; k < tile.tiles.size(); ++k)
        any_in_s2 = any_in_s2 || (k != tile.vector_tile && rows->in_s1[k] && slid_along(k));
      if (!any_in_s2 || !any_window) {
        int64_t reduction = 1;
        for (size_t i : tile.reductions) reduction *= covered_by(design, i);
        rows = reduction >= kBlockedLeastChunks * kBlockedChunk
                   ? blocked_rows(tile, extents, axes_of[t].free, sizing.streaming_rows, sizing.pixels_outside)
                   : std::nullopt;
        if (!rows) return std::nullopt;
      } else {
        if (sizing.pixels_outside) return std::nullopt;  // the wide shape is reduction-blocked only
        for (size_t r = tile.reductions.size(); r-- > 0;)
          if (sliding[r] < 0) split_channels = r;
        if (!split_channels) return std::nullopt;
      }
    }
    const bool blocked = !rows->s2.empty();
    // A shape whose vector operand is a model's weights (`constants`),
    // on an output's pixels (two or more axes the weights leave out: a 1x1
    // convolution's rows and columns), whose input weighs at least half
    // its weights, has the threads split the pixels: the rows'
    // tiles in S0 (first there: they split the input as many bytes as the
    // columns, and come first on the tie; multi_level_tiling) and the
    // other axes the weights read (the output-channel blocks) in S1,
    // inside each job. Each thread then reads the rows it wrote one kernel
    // before, as the depthwise and windowed convolutions around it split
    // them; the weights, which no kernel writes, each thread reads whole
    // from its own caches. With the rows in S1 the threads split the
    // columns or the channels, reading half of their input from the other
    // thread's cache: mobilenet_v2's 96->24 at 56², after a depthwise
    // split by rows, ran at 0.056 ms in the model against 0.040 alone,
    // where a record splitting rows (0.046 alone) ran at 0.047 (AMD EPYC
    // Zen 5, 2 threads). Where the weights weigh more than twice the input
    // (the 7² layers), the threads split the channels, each streaming half
    // of the weights, the rows in S1 as BLIS has them.
    int free_pixels = 0;
    for (size_t k = 0; k < tile.tiles.size(); ++k)
      free_pixels += k != tile.vector_tile && axes_of[t].free[k] && extents[k] > 1;
    const bool split_pixels = sizing.window == 0 && !streaming && axes_of[t].operand_constant && free_pixels >= 2 &&
                              2 * axes_of[t].other_bytes >= axes_of[t].operand_bytes;
    // A reduction-blocked shape whose weights weigh more than twice its
    // input takes its output-channel blocks' tiles all in S0, none in S1:
    // the parallel jobs (S0's loops fused, and S1's after them) then run a
    // group of blocks over every row tile before the next group, each
    // group's weights read into a thread's L2 once and the smaller input
    // read again per group. With blocks in S1 the jobs of one row tile
    // cycle through all of a thread's weights before the next: on resnet50's
    // 1024->512 at 14² (2 MB of weights, 0.8 MB of input; Intel Xeon,
    // model 167, 2 threads), the best of 400 trials ran at 437-441 GFLOP/s
    // so and 446-449 with the same tiles in this order, beside oneDNN's
    // 454-460 in the same `kiln_bench` processes; on 256->1024 at 14²,
    // 2048->512 and 512->2048 at 7² and 1024->2048/2 from 14² the order
    // moved their best records by under 1%.
    const bool heavy_weights = axes_of[t].operand_bytes > 2 * axes_of[t].other_bytes;
    for (size_t k = 0; k < tile.tiles.size(); ++k) {
      TileDecision decision;
      const int64_t n = rows->s3[k];
      if (k == tile.vector_tile) {
        // The vector tile divides its extent (sample_perfect_tile).
        const int64_t width = vector_width(extents[k], tile.lanes, sizing.vectors);
        decision.factors = {extents[k] / width, 1, 1, width};
      } else if (blocked && rows->s2[k] > 0) {
        decision.factors = {TileDecision::kInferred, 1, rows->s2[k], n};
      } else if (rows->in_s1[k] && streaming && slid_along(k)) {
        decision.factors = {TileDecision::kInferred, 1, covering_outer(extents[k], {n}), n};
      } else if (rows->in_s1[k] && streaming) {
        const int64_t in_each_job = blocked && heavy_weights ? 1 : divisor_up_to(covering_outer(extents[k], {n}), 4);
        decision.factors = {TileDecision::kInferred, in_each_job, 1, n};
      } else if (split_pixels ? !axes_of[t].free[k] : rows->in_s1[k]) {
        decision.factors = {TileDecision::kInferred, covering_outer(extents[k], {n}), 1, n};
      } else {
        decision.factors = {covering_outer(extents[k], {n}), 1, 1, n};
      }
      out = out.with_decision(tile.tiles[k], std::move(decision));
    }
    // A reduction-blocked shape's chunk: the innermost reductions' steps
    // inside, outward, up to kBlockedChunk elements (the wide shape's
    // kBlockedWideChunk).
    const int64_t chunk_elements = sizing.pixels_outside ? kBlockedWideChunk : kBlockedChunk;
    int64_t chunk = 1;
    for (size_t r = tile.reductions.size(); blocked && r-- > 0;) {
      const int64_t extent = covered_by(design, tile.reductions[r]);
      const int64_t in = divisor_up_to(extent, std::max<int64_t>(1, chunk_elements / chunk));
      chunk *= in;
      out = out.with_decision(tile.reductions[r], TileDecision{{extent / in, in}});
    }
    for (size_t r = 0; !blocked && r < tile.reductions.size(); ++r) {
      const int64_t extent = covered_by(design, tile.reductions[r]);
      const int along = sliding[r];
      const bool inside = along >= 0 && static_cast<size_t>(along) != tile.vector_tile && rows->s3[along] > 1;
      const int64_t in = inside                                     ? extent
                         : split_channels && r == *split_channels ? divisor_up_to(extent, 2)
                                                                    : 1;
      out = out.with_decision(tile.reductions[r], TileDecision{{extent / in, in}});
    }
    if (rows->innermost) {
      std::optional<Trace> reordered = with_s3_inside(out, tile, *rows->innermost);
      if (!reordered) return std::nullopt;
      out = std::move(*reordered);
    }
  }
  std::optional<Trace> mended = transfer_design(f, out);
  if (!mended || tiles.empty()) return mended;
  // The compute locations drawn after a tiled block's tiles (its packed
  // operand's, and a window shape's padding) go where panel_location says,
  // where that is legal; other padding goes to the root; elsewhere they
  // stay as drawn. A window shape's padding goes with its window tiles, in
  // S0, into each parallel job: on conv2d 56² (Zen 3), TVM's best design ran
  // at 144 GFLOP/s so and at 117 with the padding at the root.
  // They are read off the design with every producer at the root (one
  // drawn inlined has no block to ask about).
  std::vector<size_t> locations;
  for (size_t i = tiles[0].tiles.back() + 1; i < design.size(); ++i)
    if (design.instructions()[i].kind == &inst::sample_compute_location) locations.push_back(i);
  Trace rooted = *mended;
  for (size_t i : locations) rooted = rooted.with_decision(i, LocationDecision{LocationDecision::kRoot});
  std::optional<PrimFunc> scheduled;
  try {
    scheduled = apply_trace(rooted, f).func();
  } catch (const Error&) {
    return mended;  // no producer may stay at the root here: the drawn places stand
  }
  for (size_t i : locations) {
    const RV* block = std::get_if<RV>(&design.instructions()[i].inputs.at(0));
    const std::optional<std::string> producer = block ? defs.block_name(*block) : std::nullopt;
    if (!producer) continue;
    const BlockInfo info = block_info(*scheduled, *producer);
    const bool per_panel = sizing.window > 0 || info.is_copy;
    const int64_t at = per_panel && !copies_a_constant(*scheduled, info, constants)
                           ? panel_location(*scheduled, tiles[0].block, *producer, tiles[0].tiles.size())
                           : LocationDecision::kRoot;
    const bool padding = info.is_injective && !info.is_copy;
    if (sizing.inline_padding && padding) {
      Trace inlined = mended->with_decision(i, LocationDecision{LocationDecision::kInline});
      if (replay_candidate(f, inlined)) {
        mended = inlined;
        continue;
      }
    }
    Trace placed = mended->with_decision(i, LocationDecision{at});
    if (replay_candidate(f, placed)) mended = placed;
  }
  return mended;
}

}  // namespace

std::vector<Trace> register_designs(const PrimFunc& f, const std::vector<Trace>& sketches, uint64_t seed,
                                    size_t limit, const std::vector<int>& constants) {
  // One draw per sketch that has a register tile: the tiles around it.
  std::vector<Trace> draws;
  for (size_t s = 0; s < sketches.size(); ++s) {
    if (register_tiles(sketches[s]).empty()) continue;
    for (uint64_t attempt = 0; attempt < 8; ++attempt) {
      std::optional<Candidate> c = sample_candidate(f, sketches[s], seed + 1000 * s + attempt);
      if (!c) continue;
      draws.push_back(c->trace.without_postproc());
      break;
    }
  }
  // What each draw's loops are, read once per draw (each costs replays of
  // the draw), not once per shape sized from it.
  std::vector<std::vector<int64_t>> extents;
  std::vector<std::vector<TileAxes>> roles;  // per draw, per register tile
  for (const Trace& draw : draws) {
    extents.push_back(tile_extents(f, draw));
    roles.emplace_back();
    for (const RegisterTile& tile : register_tiles(draw)) roles.back().push_back(tile_axes(f, draw, tile, constants));
  }
  std::vector<Trace> out;
  std::unordered_set<uint64_t> seen;
  auto add = [&](size_t d, const Sizing& sizing) {
    std::optional<Trace> design = sized(f, draws[d], extents[d], roles[d], sizing, constants);
    if (!design) return;
    std::optional<Candidate> c = replay_candidate(f, *design);
    if (!c) return;  // spills (a tile of more rows than the axis has leaves none), or illegal
    Trace kept = c->trace.without_postproc();
    if (seen.insert(kept.fingerprint()).second) out.push_back(std::move(kept));
  };
  // The window shapes first, on each vector axis's last sketch that writes
  // back (multi_level_tiling writes back under S0, then under S1: a
  // register tile written back under S1 stays in registers over the whole
  // reduction, while under S0 it is a slice of a larger tile in memory).
  std::map<size_t, size_t> written_back;  // vector axis -> draw
  for (size_t d = 0; d < draws.size(); ++d)
    if (writes_back(draws[d])) written_back[register_tiles(draws[d])[0].vector_tile] = d;
  for (int64_t rows : kWindowRows)
    for (const auto& [axis, d] : written_back)
      for (bool inline_padding : {false, true})
        if (out.size() < limit) add(d, Sizing{1, 1, rows, 0, inline_padding});
  // The weight-streaming shapes next, on the sketches that write back, and
  // again on the last of them that packs nothing: its weights are read
  // where they lie, where the packed sketch copies each job's share first,
  // a copy that a compiled model makes once (prepacked) but a layer timed
  // alone makes on every call (resnet50's 2048→512 at 7², Zen 5: 426
  // GFLOP/s packed, 497 not, the weights' layout already blocked).
  std::map<size_t, size_t> unpacked;  // vector axis -> draw
  for (size_t d = 0; d < draws.size(); ++d)
    if (writes_back(draws[d]) && !packs(draws[d])) unpacked[register_tiles(draws[d])[0].vector_tile] = d;
  std::vector<Sizing> streaming_shapes;
  for (int64_t rows : kStreamingRows)
    streaming_shapes.push_back({.second_rows = kStreamingSecondRows, .streaming_rows = rows});
  streaming_shapes.push_back({.streaming_rows = kBlockedWideRows, .pixels_outside = true});  // 1x1 layers' only
  for (const Sizing& sizing : streaming_shapes)
    for (const std::map<size_t, size_t>* sketches : {&written_back, &unpacked})
      for (const auto& [axis, d] : *sketches)
        if (out.size() < limit && (sketches == &written_back || written_back.at(axis) != d)) add(d, sizing);
  // Then every shape on every vector axis before the sketches that differ
  // only in how they write back: conv2d's five sketches vectorize two axes,
  // and 16 designs taken shape by shape left the output-channel vector
  // without its one-vector shape, the fastest on 7² output rows. Each
  // axis's first is the sketch that keeps its register tile in registers
  // (written back under S1), where there is one: matmul's first sketch
  // accumulates in C itself, and its 6 x 64 tile ran at 44 GFLOP/s there
  // against 222 written back, the best of the first batch (1024³, AMD EPYC
  // Zen 4); taken shape by shape from the first sketch, the written-back
  // one came after the limit of 16.
  std::vector<size_t> first_of_axis, others;
  std::set<size_t> axes;
  for (const auto& [axis, d] : written_back) {
    axes.insert(axis);
    first_of_axis.push_back(d);
  }
  for (size_t d = 0; d < draws.size(); ++d) {
    if (std::find(first_of_axis.begin(), first_of_axis.end(), d) != first_of_axis.end()) continue;
    (axes.insert(register_tiles(draws[d])[0].vector_tile).second ? first_of_axis : others).push_back(d);
  }
  // The channel shapes before them, on each axis's first sketch: on a 1x1
  // convolution they lead kShapes' (channel_rows).
  for (int64_t pixel_axes : kChannelPixelAxes)
    for (size_t d : first_of_axis)
      if (out.size() < limit) add(d, Sizing{.channel_rows = kChannelRows, .pixel_axes = pixel_axes});
  for (size_t d : first_of_axis)
    if (out.size() < limit) add(d, Sizing{.channel_rows = kWideChannels, .pixels_outside = true});
  for (const std::vector<size_t>* group : {&first_of_axis, &others})
    for (const TileShape& shape : kShapes)
      for (size_t d : *group)
        if (out.size() < limit) add(d, Sizing{shape.vectors, shape.second_rows, 0});
  return out;
}

}  // namespace kiln::search
