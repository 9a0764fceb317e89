#include "search/sample.h"

#include "core/error.h"
#include "search/postproc.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

std::optional<Candidate> run(const PrimFunc& f, const Trace& design, uint64_t seed, SampleFailure* why) {
  try {
    Schedule sch(f, {.seed = seed});
    design.apply(sch);
    postprocess(sch);
    return Candidate{sch.trace(), sch.func()};
  } catch (const TraceError& e) {
    if (why) *why = {e.kind(), e.what()};
  } catch (const ScheduleError& e) {  // in postprocessing
    if (why) *why = {e.kind(), e.what()};
  } catch (const Error& e) {
    if (why) *why = {"Error", e.what()};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Candidate> sample_candidate(const PrimFunc& f, const Trace& sketch, uint64_t seed, SampleFailure* why) {
  const Trace design = sketch.without_postproc();
  Trace fresh;
  for (Instruction inst : design.instructions()) {
    if (inst.kind->is_sampling) inst.decision = nullptr;
    fresh.append(std::move(inst));
  }
  return run(f, fresh, seed, why);
}

std::optional<Candidate> replay_candidate(const PrimFunc& f, const Trace& trace, SampleFailure* why, uint64_t seed) {
  return run(f, trace.without_postproc(), seed, why);
}

}  // namespace kiln::search
