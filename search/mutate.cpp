#include "search/mutate.h"

#include <algorithm>
#include <vector>

namespace kiln::search {
namespace {

// Each kind of decision has its own mutation: a new decision for `inst`,
// nullopt when it has none to offer, or no decision (draw again on replay).

// Moves a prime factor of one level's tile to another level; a sample_tile
// (whose tiles need not divide the extent) may also take another
// innermost size, which is what makes its partial tiles reachable. A
// sample_tile whose inner factors changed leaves its outermost inferred.
std::optional<Decision> mutate(const TileDecision& d, const Instruction& inst, RandomState& rand) {
  std::vector<int64_t> f = d.factors;
  const int64_t max_innermost = std::get<TileSampleAttrs>(inst.attrs).max_innermost;
  const bool covering = inst.kind == &inst::sample_tile;
  if (covering && f.size() >= 2 && rand.uniform_int(3) == 0) {
    // The decision covers the extent E with less than 2 E (schedule.h):
    // an inner product up to half of the decision's is at most E, so the
    // new tile covers E with less than 2 E too and replays.
    const int64_t between = tile_product({f.begin() + 1, f.end() - 1});
    int64_t limit = tile_product(f) / 2 / between;
    if (max_innermost > 0) limit = std::min(limit, max_innermost);
    if (limit >= 2) {
      int64_t next = 1 + rand.uniform_int(limit - 1);
      if (next >= f.back()) ++next;
      f.back() = next;
      f[0] = TileDecision::kInferred;
      return TileDecision{std::move(f)};
    }
  }
  std::vector<int> movable;
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i] > 1) movable.push_back(static_cast<int>(i));
  if (movable.empty() || f.size() < 2) return std::nullopt;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int from = movable[rand.uniform_int(static_cast<int64_t>(movable.size()))];
    int to = static_cast<int>(rand.uniform_int(static_cast<int64_t>(f.size()) - 1));
    if (to >= from) ++to;
    std::vector<int64_t> primes = prime_factors(f[from]);
    const int64_t p = primes[rand.uniform_int(static_cast<int64_t>(primes.size()))];
    std::vector<int64_t> g = f;
    g[from] /= p;
    g[to] *= p;
    if (max_innermost > 0 && g.back() > max_innermost) continue;
    if (covering && (from == 0 || to == 0)) g[0] = TileDecision::kInferred;
    return TileDecision{std::move(g)};
  }
  return std::nullopt;
}

// Another candidate of the draw (the auto-unroll step, say).
std::optional<Decision> mutate(const CategoricalDecision& d, const Instruction& inst, RandomState& rand) {
  const int64_t n = static_cast<int64_t>(std::get<CategoricalAttrs>(inst.attrs).candidates.size());
  if (n < 2) return std::nullopt;
  int64_t next = rand.uniform_int(n - 1);
  if (next >= d.index) ++next;
  return CategoricalDecision{next};
}

// The legal locations depend on the decisions before this one, so the
// location is drawn again on replay rather than picked here.
std::optional<Decision> mutate(const LocationDecision&, const Instruction&, RandomState&) { return Decision{}; }

std::optional<Decision> mutate(std::monostate, const Instruction&, RandomState&) { return std::nullopt; }

}  // namespace

std::optional<Trace> mutate(const Trace& design, RandomState& rand) {
  std::vector<size_t> sampling;
  for (size_t i = 0; i < design.size(); ++i)
    if (design.instructions()[i].kind->is_sampling) sampling.push_back(i);
  for (int attempt = 0; attempt < 8 && !sampling.empty(); ++attempt) {
    const size_t i = sampling[rand.uniform_int(static_cast<int64_t>(sampling.size()))];
    const Instruction& inst = design.instructions()[i];
    std::optional<Decision> d = std::visit([&](const auto& typed) { return mutate(typed, inst, rand); }, inst.decision);
    if (d) return design.with_decision(i, std::move(*d));
  }
  return std::nullopt;
}

}  // namespace kiln::search
