#include "search/register_designs.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_set>

#include "search/block_info.h"
#include "search/register_tile.h"
#include "search/rules/rules.h"
#include "search/sample.h"
#include "search/transfer.h"
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

// The name of the block `handle` stands for, from the get_block that made it.
std::optional<std::string> block_name(const Trace& t, const InstInput& handle) {
  const RV* rv = std::get_if<RV>(&handle);
  if (!rv) return std::nullopt;
  for (const Instruction& inst : t.instructions())
    if (inst.kind == &inst::get_block && !inst.outputs.empty() && inst.outputs[0] == *rv && !inst.attrs.empty())
      return inst.attrs[0].get<std::string>();
  return std::nullopt;
}

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

// `design` with each tiled block's S3 tiles made up to `vectors` vectors
// wide (the widest divisor of the vector axis) and up to budget / vectors
// rows deep (even_rows), the rows on the largest other spatial axis, or `second_rows` of
// them on the next largest and the rest on the largest, every other S3
// tile 1 (nullopt when there is no second axis to take rows); `extent_of`
// is tile_extents(f, design). Around it, the loops of a BLIS macro-kernel
// (and of examples/schedules/matmul_1024_avx2.json): the panels of the vector
// axis and every other axis in S0 (postprocessing runs them in parallel,
// and a packed operand computed there is packed once per panel), the
// rows' register tiles in S1, no S2 tiles, and each reduction axis in one
// loop (its inner tile 1) around the register tile, as in BLIS's
// micro-kernel; and the auto-unroll step at kUnrollStep. (A reduction split
// in two nested loops around a partial register tile, whose last rows are
// predicated, kept LLVM from holding the accumulators in registers: 6 x 16
// on matmul 1024 ran at 0.45 of OpenBLAS with k as 16 x 64, and at 0.99
// with k whole, on a Zen 3.) Decisions that no longer fit their loop are
// mended by transfer_design (a row tile's outermost is inferred).
std::optional<Trace> sized(const PrimFunc& f, const Trace& design, const std::vector<int64_t>& extent_of,
                           int64_t vectors, int64_t second_rows) {
  Trace out = design;
  for (size_t i = 0; i + 1 < design.size(); ++i) {
    const Instruction& inst = design.instructions()[i];
    const Instruction& next = design.instructions()[i + 1];
    if (inst.kind != &inst::sample_categorical || next.kind != &inst::annotate || next.attrs.empty() ||
        next.attrs[0] != kUnrollAnn)
      continue;
    const std::vector<int64_t> steps = inst.attrs[0].get<std::vector<int64_t>>();
    for (size_t k = 0; k < steps.size(); ++k)
      if (steps[k] == kUnrollStep) out = out.with_decision(i, CategoricalDecision{static_cast<int64_t>(k)});
  }
  const std::vector<RegisterTile> tiles = register_tiles(design);
  for (const RegisterTile& tile : tiles) {
    for (size_t i : tile.reductions) out = out.with_decision(i, TileDecision{{covered_by(design, i), 1}});
    std::vector<int64_t> extents;
    std::optional<size_t> row, row2;
    for (size_t k = 0; k < tile.tiles.size(); ++k) {
      extents.push_back(extent_of[tile.tiles[k]]);
      if (k != tile.vector_tile && extents[k] > (row ? extents[*row] : 1)) row = k;
    }
    if (second_rows > 1) {
      for (size_t k = 0; k < tile.tiles.size(); ++k)
        if (k != tile.vector_tile && k != row && extents[k] >= second_rows &&
            extents[k] > (row2 ? extents[*row2] : 1))
          row2 = k;
      if (!row2) return std::nullopt;  // no second axis to take rows
    }
    const int64_t rows = std::max<int64_t>(1, tile.budget / vectors / second_rows);
    auto rows_of = [&](size_t k, int64_t n) {
      return TileDecision{{TileDecision::kInferred, covering_outer(extents[k], {n}), 1, n}};
    };
    for (size_t k = 0; k < tile.tiles.size(); ++k) {
      TileDecision decision;
      if (k == tile.vector_tile) {
        // The vector tile divides its extent (sample_perfect_tile): the
        // widest divisor up to `vectors` vectors, so 7-wide rows make one
        // vector of 7 lanes, not 7 of one.
        int64_t width = std::min(extents[k], tile.lanes * vectors);
        while (extents[k] % width) --width;
        decision.factors = {extents[k] / width, 1, 1, width};
      } else if (row && k == *row) {
        decision = rows_of(k, even_rows(extents[k], rows));
      } else if (row2 && k == *row2) {
        decision = rows_of(k, second_rows);
      } else {
        decision.factors = {extents[k], 1, 1, 1};
      }
      out = out.with_decision(tile.tiles[k], std::move(decision));
    }
  }
  std::optional<Trace> mended = transfer_design(f, out);
  if (!mended || tiles.empty()) return mended;
  // The compute locations drawn after a tiled block's tiles (its packed
  // operand's, its padding's) go where panel_location says, where that is
  // legal; elsewhere they stay as drawn.
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
    const Instruction& inst = design.instructions()[i];
    const std::optional<std::string> producer = block_name(design, inst.inputs.at(0));
    if (!producer) continue;
    const int64_t at = block_info(*scheduled, *producer).is_copy
                           ? panel_location(*scheduled, tiles[0].block, *producer, tiles[0].tiles.size())
                           : LocationDecision::kRoot;
    Trace placed = mended->with_decision(i, LocationDecision{at});
    if (replay_candidate(f, placed)) mended = placed;
  }
  return mended;
}

}  // namespace

std::vector<Trace> register_designs(const PrimFunc& f, const std::vector<Trace>& sketches, uint64_t seed,
                                    size_t limit) {
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
  std::vector<std::vector<int64_t>> extents;
  for (const Trace& draw : draws) extents.push_back(tile_extents(f, draw));
  // Every shape on every vector axis before the sketches that differ only
  // in how they write back: conv2d's five sketches vectorize two axes, and
  // 16 designs taken shape by shape left the output-channel vector without
  // its one-vector shape, the fastest on 7² output rows.
  std::vector<size_t> first_of_axis, others;
  std::set<size_t> axes;
  for (size_t d = 0; d < draws.size(); ++d)
    (axes.insert(register_tiles(draws[d])[0].vector_tile).second ? first_of_axis : others).push_back(d);
  std::vector<Trace> out;
  std::unordered_set<uint64_t> seen;
  for (const std::vector<size_t>* group : {&first_of_axis, &others})
    for (const TileShape& shape : kShapes)
      for (size_t d : *group) {
        if (out.size() >= limit) return out;
        std::optional<Trace> design = sized(f, draws[d], extents[d], shape.vectors, shape.second_rows);
        if (!design) continue;
        std::optional<Candidate> c = replay_candidate(f, *design);
        if (!c) continue;  // spills (a tile of more rows than the axis has leaves none), or illegal
        Trace kept = c->trace.without_postproc();
        if (seen.insert(kept.fingerprint()).second) out.push_back(std::move(kept));
      }
  return out;
}

}  // namespace kiln::search
