#include "search/untuned_design.h"

#include "search/register_designs.h"
#include "search/space.h"
#include "search/space_params.h"

namespace kiln::search {
namespace {

// The seed of the draws: fixed, so that a workload's untuned program is the
// same in every compile.
constexpr uint64_t kUntunedSeed = 1;

}  // namespace

std::optional<Candidate> untuned_design(const PrimFunc& f, const Target& target, const std::vector<int>& constants) {
  const std::vector<Trace> sketches = design_space(f, SpaceParams::for_target(target));
  for (const Trace& design : register_designs(f, sketches, kUntunedSeed, 1, constants))
    if (std::optional<Candidate> c = replay_candidate(f, design)) return c;
  for (const Trace& sketch : sketches)
    if (std::optional<Candidate> c = sample_candidate(f, sketch, kUntunedSeed)) return c;
  return std::nullopt;
}

}  // namespace kiln::search
