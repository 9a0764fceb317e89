#include "search/sample.h"

#include "core/error.h"
#include "search/postproc.h"
#include "search/register_tile.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

// Applies the design and postprocesses. On failure, the reason in *why and,
// when postprocessing refused it, the design as drawn in *drawn.
std::optional<Candidate> run(const PrimFunc& f, const Trace& design, uint64_t seed, SampleFailure* why,
                             Trace* drawn = nullptr) {
  Schedule sch(f, {.seed = seed});
  try {
    design.apply(sch);
    postprocess(sch);
    return Candidate{sch.trace(), sch.func()};
  } catch (const TraceError& e) {
    if (why) *why = {e.kind(), e.what()};
  } catch (const ScheduleError& e) {  // in postprocessing
    if (why) *why = {e.kind(), e.what()};
    if (drawn) *drawn = sch.trace().without_postproc();
  } catch (const Error& e) {
    if (why) *why = {ScheduleErrorKind::kOther, e.what()};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Candidate> sample_candidate(const PrimFunc& f, const Trace& sketch, uint64_t seed, SampleFailure* why) {
  const Trace design = sketch.without_postproc();
  Trace fresh;
  for (Instruction inst : design.instructions()) {
    if (inst.kind->is_sampling) inst.decision = Decision{};
    fresh.append(std::move(inst));
  }
  SampleFailure failure;
  Trace drawn;
  std::optional<Candidate> c = run(f, fresh, seed, &failure, &drawn);
  if (!c && failure.kind == ScheduleErrorKind::kRegisterTile) {
    // The drawn tiles spill: shrink them to fit (register_tile.h), once.
    RandomState rand(seed ^ 0x5DEECE66DULL);
    c = run(f, fit_register_tiles(drawn, rand), seed, &failure);
  }
  if (!c && why) *why = std::move(failure);
  return c;
}

std::optional<Candidate> replay_candidate(const PrimFunc& f, const Trace& trace, SampleFailure* why, uint64_t seed) {
  return run(f, trace.without_postproc(), seed, why);
}

}  // namespace kiln::search
