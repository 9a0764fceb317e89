#include "search/register_tile.h"

#include <algorithm>
#include <optional>

#include "search/rules/rules.h"
#include "tir/schedule/dataflow.h"

namespace kiln::search {
namespace {

// The S3 (innermost) factor of a four-level tile decision, or 0 when the
// instruction has none.
int64_t s3_factor(const Trace& t, size_t i) {
  const std::vector<int64_t>* f = tile_factors(t.instructions()[i]);
  return f && f->size() == 4 ? (*f)[3] : 0;
}

// The integer value of an annotate instruction with this key, if it is one.
std::optional<int64_t> annotation_value(const Instruction& inst, const char* key) {
  if (inst.kind != &inst::annotate) return std::nullopt;
  const AnnotateAttrs& a = std::get<AnnotateAttrs>(inst.attrs);
  if (a.key != key || !a.value) return std::nullopt;
  const int64_t* v = std::get_if<int64_t>(&*a.value);
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

// The block handle an annotate instruction annotates, if it annotates one.
std::optional<RV> annotated_block(const Instruction& inst) {
  const RV* rv = inst.inputs.empty() ? nullptr : std::get_if<RV>(&inst.inputs[0]);
  if (!rv || rv->kind != RVKind::kBlock) return std::nullopt;
  return *rv;
}

}  // namespace

int64_t s3_registers(int64_t extent, bool vectorized, int64_t lanes) {
  return vectorized && extent >= 2 ? (extent + lanes - 1) / lanes : extent;
}

std::vector<RegisterTile> register_tiles(const Trace& design) {
  const std::vector<Instruction>& insts = design.instructions();
  const TraceDefs defs(design);
  std::vector<RegisterTile> out;
  for (const Instruction& tiled : insts) {
    const std::optional<int64_t> budget = annotation_value(tiled, kTiledAnn);
    const std::optional<RV> block = annotated_block(tiled);
    if (!budget || *budget <= 0 || !block) continue;
    RegisterTile tile;
    tile.block = defs.block_name(*block).value_or("");
    tile.budget = *budget;
    // The tile samples of the loops get_loops gave for this handle, by
    // the loop's position: the spatial ones, then the reduction ones.
    std::vector<std::pair<size_t, size_t>> spatial, reduce;  // (loop position, instruction)
    for (size_t i = 0; i < insts.size(); ++i) {
      if (!is_tile_sample(insts[i])) continue;
      const std::optional<TraceDefs::Def> loop = defs.def_of_input(i, 0);
      if (!loop) continue;
      const Instruction& get_loops = insts[loop->instruction];
      if (get_loops.kind != &inst::get_loops || get_loops.inputs.empty() ||
          get_loops.inputs[0] != InstInput(*block))
        continue;
      const int64_t levels = std::get<TileSampleAttrs>(insts[i].attrs).levels;
      if (levels == kSpatialTileLevels) spatial.emplace_back(loop->output, i);
      else if (levels == kReduceTileLevels) reduce.emplace_back(loop->output, i);
    }
    std::sort(spatial.begin(), spatial.end());
    std::sort(reduce.begin(), reduce.end());
    for (const auto& [position, i] : spatial) tile.tiles.push_back(i);
    for (const auto& [position, i] : reduce) tile.reductions.push_back(i);
    tile.vector_tile = tile.tiles.empty() ? 0 : tile.tiles.size() - 1;
    for (const Instruction& inst : insts) {
      if (annotated_block(inst) != block) continue;
      if (std::optional<int64_t> lanes = annotation_value(inst, kLanesAnn); lanes && *lanes > 0) tile.lanes = *lanes;
      if (std::optional<int64_t> axis = annotation_value(inst, kVectorAxisAnn);
          axis && *axis >= 0 && static_cast<size_t>(*axis) < tile.tiles.size())
        tile.vector_tile = static_cast<size_t>(*axis);
    }
    out.push_back(std::move(tile));
  }
  return out;
}

int64_t registers_of(const Trace& design, const RegisterTile& tile) {
  int64_t regs = 1;
  for (size_t k = 0; k < tile.tiles.size(); ++k) {
    const int64_t s3 = s3_factor(design, tile.tiles[k]);
    if (s3 == 0) return 0;
    regs *= s3_registers(s3, k == tile.vector_tile, tile.lanes);
  }
  return regs;
}

Trace fit_register_tiles(const Trace& design, RandomState& rand) {
  Trace out = design;
  for (const RegisterTile& tile : register_tiles(design)) {
    while (registers_of(out, tile) > tile.budget) {
      // The S3 tiles that can give up a factor that frees registers (the
      // vectorized one only beyond one vector).
      std::vector<size_t> movable;
      for (size_t k = 0; k < tile.tiles.size(); ++k) {
        if (s3_registers(s3_factor(out, tile.tiles[k]), k == tile.vector_tile, tile.lanes) > 1)
          movable.push_back(k);
      }
      if (movable.empty()) break;
      const size_t k = movable[rand.uniform_int(static_cast<int64_t>(movable.size()))];
      // S2 x S3 stays, so the outermost factor (of a perfect tile, or one
      // that covers the extent) stays right.
      std::vector<int64_t> f = *tile_factors(out.instructions()[tile.tiles[k]]);
      std::vector<int64_t> primes = prime_factors(f[3]);
      const int64_t p = primes[rand.uniform_int(static_cast<int64_t>(primes.size()))];
      f[3] /= p;
      f[2] *= p;
      out = out.with_decision(tile.tiles[k], TileDecision{std::move(f)});
    }
  }
  return out;
}

}  // namespace kiln::search
