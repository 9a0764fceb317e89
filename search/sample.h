// Candidates of a design space: a sketch (or a mutated trace) replayed with
// its decisions, then postprocessed (postproc.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "search/space_params.h"
#include "tir/schedule/trace.h"
#include "tir/stmt.h"

namespace kiln::search {

struct Candidate {
  Trace trace;     // the whole trace, postprocessing included
  PrimFunc func;   // the scheduled function
};

// Why a draw made no candidate: the kind (of the ScheduleError, or kOther)
// and the message. No kind: nothing failed (a mutation found nothing to change).
struct SampleFailure {
  std::optional<ScheduleErrorKind> kind;
  std::string message;
  const char* name() const { return kind ? schedule_error_name(*kind) : "none"; }
};

// The sketch with every decision drawn afresh (seeded). Nullopt, with the
// reason in *why, when the draw does not make a valid candidate.
std::optional<Candidate> sample_candidate(const PrimFunc& f, const Trace& sketch, uint64_t seed,
                                          SampleFailure* why = nullptr);

// A trace replayed with the decisions it holds, its postprocessing (if any)
// made anew: how a mutated candidate, or one from the database, is rebuilt.
// A decision left null (a mutated compute location) is drawn with `seed`.
std::optional<Candidate> replay_candidate(const PrimFunc& f, const Trace& trace, SampleFailure* why = nullptr,
                                          uint64_t seed = 1);

}  // namespace kiln::search
