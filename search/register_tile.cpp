#include "search/register_tile.h"

#include <optional>

#include "search/rules/rules.h"

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
  if (inst.kind != &inst::annotate || inst.attrs.size() != 2 || inst.attrs[0] != key) return std::nullopt;
  if (!inst.attrs[1].is_number_integer()) return std::nullopt;
  return inst.attrs[1].get<int64_t>();
}

}  // namespace

int64_t s3_registers(int64_t extent, bool vectorized, int64_t lanes) {
  return vectorized && extent >= 2 ? (extent + lanes - 1) / lanes : extent;
}

std::vector<RegisterTile> register_tiles(const Trace& design) {
  std::vector<RegisterTile> out;
  std::vector<size_t> pending, reductions;
  std::string block;
  for (size_t i = 0; i < design.size(); ++i) {
    const Instruction& inst = design.instructions()[i];
    if (inst.kind == &inst::get_block) {
      reductions.clear();  // a block's tiling starts here (add-rfactor's split is another block's)
      if (pending.empty() && !inst.attrs.empty() && inst.attrs[0].is_string()) block = inst.attrs[0].get<std::string>();
    } else if (is_tile_sample(inst) && !inst.attrs.empty() && inst.attrs[0] == 4) {
      pending.push_back(i);
    } else if (is_tile_sample(inst) && !inst.attrs.empty() && inst.attrs[0] == 2) {
      reductions.push_back(i);
    } else if (std::optional<int64_t> budget = annotation_value(inst, kTiledAnn); budget && *budget > 0) {
      const size_t last = pending.empty() ? 0 : pending.size() - 1;
      out.push_back({block, std::move(pending), *budget, 1, last, std::move(reductions)});
      pending.clear();
      reductions.clear();
    } else if (std::optional<int64_t> lanes = annotation_value(inst, kLanesAnn); lanes && *lanes > 0 && !out.empty()) {
      out.back().lanes = *lanes;
    } else if (std::optional<int64_t> axis = annotation_value(inst, kVectorAxisAnn); axis && !out.empty()) {
      if (*axis >= 0 && static_cast<size_t>(*axis) < out.back().tiles.size()) out.back().vector_tile = *axis;
    }
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
