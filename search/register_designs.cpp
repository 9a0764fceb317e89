#include "search/register_designs.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "search/register_tile.h"
#include "search/sample.h"
#include "search/transfer.h"

namespace kiln::search {
namespace {

// Vectors per register tile row, most promising first: two vectors leave
// rows enough to hide the FMA latency on both ISAs (6 x 2 ymm, 14 x 2 zmm).
constexpr int64_t kVectorCounts[] = {2, 1, 3, 4};

std::vector<int64_t> factors_at(const Trace& t, size_t i) {
  return t.instructions()[i].decision.get<std::vector<int64_t>>();
}

int64_t product(const std::vector<int64_t>& f) {
  int64_t p = 1;
  for (int64_t x : f) p *= x;
  return p;
}

// `design` with each tiled block's S3 tiles made `vectors` vectors wide and
// budget / vectors rows deep, the rows on the largest other spatial axis,
// every other S3 tile 1. Decisions that no longer fit their loop are
// mended by transfer_design (the vector tile's to a divisor of its extent,
// the rows' outermost inferred).
std::optional<Trace> sized(const PrimFunc& f, const Trace& design, int64_t vectors) {
  Trace out = design;
  for (const RegisterTile& tile : register_tiles(design)) {
    std::optional<size_t> row;
    int64_t widest = 1;
    for (size_t k = 0; k < tile.tiles.size(); ++k) {
      const int64_t covered = product(factors_at(design, tile.tiles[k]));
      if (k != tile.vector_tile && covered > widest) row = k, widest = covered;
    }
    for (size_t k = 0; k < tile.tiles.size(); ++k) {
      const size_t i = tile.tiles[k];
      std::vector<int64_t> d = factors_at(design, i);
      nlohmann::json decision;
      if (k == tile.vector_tile) {
        d[3] = tile.lanes * vectors;
        decision = d;
      } else if (row && k == *row) {
        d[2] = 1;
        d[3] = std::max<int64_t>(1, tile.budget / vectors);
        if (d[1] * d[3] > widest) d[1] = 1;  // inner factors must fit in the extent
        decision = d;
        if (design.instructions()[i].kind == &inst::sample_tile) decision[0] = nullptr;
      } else {
        d[2] *= d[3];
        d[3] = 1;
        decision = d;
      }
      out = out.with_decision(i, std::move(decision));
    }
  }
  return transfer_design(f, out);
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
  std::vector<Trace> out;
  std::unordered_set<uint64_t> seen;
  for (int64_t vectors : kVectorCounts)
    for (const Trace& draw : draws) {
      if (out.size() >= limit) return out;
      std::optional<Trace> design = sized(f, draw, vectors);
      if (!design) continue;
      std::optional<Candidate> c = replay_candidate(f, *design);
      if (!c) continue;  // spills (a tile of more rows than the axis has leaves none), or illegal
      Trace kept = c->trace.without_postproc();
      if (seen.insert(kept.fingerprint()).second) out.push_back(std::move(kept));
    }
  return out;
}

}  // namespace kiln::search
