// One operator from workload string to a running kernel: the path shared by
// `kiln bench-op`, `kiln print`, bench/ and the tests (driver/).
//
//   workload string --ops::parse_workload--> Workload
//     --ops::build_workload--> PrimFunc (block form)
//     --lower (targets/lower.h)--> lowered PrimFunc
//     --build (targets/build.h)--> CompiledKernel --> timed runs
//        (targets/runtime/timing.h), checked against the reference
//        interpreter (targets/runtime/check.h)
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/workload.h"
#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "targets/runtime/timing.h"
#include "targets/target.h"
#include "tir/schedule/trace.h"

namespace kiln {

struct OpProgram {
  ops::Workload workload;
  Target target;
  PrimFunc func;       // unscheduled, block form: the reference
  PrimFunc scheduled;  // after the trace (func itself without one)
  PrimFunc lowered;    // what the code generator took
};

struct PrepareOptions {
  const Trace* trace = nullptr;  // the schedule to apply; nullptr: the default program
  // Without a trace: the tuning database whose best record for the workload
  // and target to apply (docs/tuning_database.md); none there: a warning
  // and the default program.
  std::string db;
  // Replay the trace's design (what precedes its enter_postproc marker) and
  // postprocess it anew, as the search does after a mutation, so that
  // decisions edited by hand take effect; a trace without the marker (a
  // hand schedule) applies as it is.
  bool postprocess_again = false;
  std::function<void(const std::string&, const PrimFunc&)> after_pass;
};

// Parses, builds, applies the trace and lowers. Throws kiln::Error for a
// bad workload or a trace that does not fit it (naming the instruction).
OpProgram prepare_op(const std::string& workload, const Target& target, const PrepareOptions& options = {});

// `func` scheduled by options' trace (or the database's best record for
// it), and lowered; `what` names the workload in messages.
struct ScheduledProgram {
  PrimFunc scheduled;
  PrimFunc lowered;
  // The database record applied, as StoredTrace::origin names it ("tuning.db:
  // record 17 (workload v1-..., target '...')"); empty when none was.
  std::string applied;
};
ScheduledProgram schedule_and_lower(const PrimFunc& func, const std::string& what, const Target& target,
                                    const PrepareOptions& options);

// The unscheduled program the tuning database at `db_path` holds for the
// workload `key`: a model's task, which no workload string names. Throws
// kiln::Error naming the file and the key when it holds none.
PrimFunc stored_workload(const std::string& db_path, const std::string& key);

// What `kiln print`, `kiln bench-op` and `kiln db best` take: a workload
// string, or a workload key (v1-...) that the database at `db_path` holds,
// such as a model's task, which no workload string names.
struct NamedWorkload {
  std::string name;  // the workload string as parsed, or the key
  double flops = 0;  // ops::workload_flops, or for a key counted from the IR
  PrimFunc func;     // unscheduled: the reference
};

// Throws kiln::Error for a key without `db_path`, or one the database does
// not hold, and for a malformed workload string.
NamedWorkload named_workload(const std::string& workload, const std::string& db_path);

// A NamedWorkload scheduled and lowered.
struct NamedProgram {
  std::string name;  // the workload string as parsed, or the key
  double flops = 0;  // ops::workload_flops, or for a key counted from the IR
  PrimFunc func;     // unscheduled: the reference
  PrimFunc scheduled;
  PrimFunc lowered;
  std::string applied;  // ScheduledProgram::applied
};

// prepare_op for a workload string; for a key, the stored workload
// scheduled and lowered. Throws kiln::Error for a key without options.db,
// or one the database does not hold.
NamedProgram prepare_workload_or_key(const std::string& workload, const Target& target,
                                     const PrepareOptions& options);

// The trace of a stored record, and which record it is for messages:
// "tuning.db: record 17 (workload v1-..., target 'llvm ...')".
struct StoredTrace {
  Trace trace;
  std::string origin;
};

// The trace of the best record the tuning database at `db_path` holds for
// `func` on `target`; nullopt, after a warning on stderr naming the targets
// it does hold, when there is none. Throws kiln::Error naming the file for a
// file that is no tuning database, and the record for a stored trace that
// cannot be read.
std::optional<StoredTrace> best_trace(const std::string& db_path, const PrimFunc& func, const Target& target);

// Reads a trace from a JSON file. Throws kiln::Error naming the file.
Trace read_trace_file(const std::string& path);

}  // namespace kiln
