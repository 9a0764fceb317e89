// Why a candidate has no time: the error kinds of the builder and the
// runner (docs/measurement.md). A failing candidate is a result with one of
// these, never an exception out of the tuner. The builder, the runner, the
// tuning database (which stores the names) and the search (which counts
// failures by kind) share this one vocabulary, so it lives at the bottom.
#pragma once

#include <optional>
#include <string>

namespace kiln {

enum class ErrorKind {
  kNone,
  kInstantiation,      // the trace does not apply to the workload
  kLowering,           // the scheduled program does not lower
  kCompile,            // code generation failed (or crashed the compiler)
  kBuildTimeout,       // building took longer than the builder's limit
  kRuntimeError,       // the kernel crashed, failed, or could not be loaded
  kTimeout,            // running took longer than the runner's limit
  kWrongAnswer,        // the output differs from the reference
  kUnsupportedTarget,  // built for features the device lacks: never loaded
  // A compiler bug met on the way (an internal check failed, a standard
  // library precondition broke): stored like any failure, but loud. The
  // tuner shows it, `kiln tune-op` exits non-zero, a test that meets one
  // fails. Never the candidate's fault: the search must not route around it.
  kInternal,
};

// "none", "instantiation", "lowering", "compile", "build_timeout",
// "runtime_error", "timeout", "wrong_answer", "unsupported_target",
// "internal": the names at the edges (SQL, JSON lines, the CLI).
const char* error_kind_name(ErrorKind k);
std::optional<ErrorKind> parse_error_kind(const std::string& name);

// A failure caught at a stage whose own kind is `stage`, for its record: a
// user-level error (kiln::Error and other runtime failures) is the stage's,
// a broken invariant (kiln::InternalError, std::logic_error) is kInternal,
// its message saying so. Call inside a catch block.
struct CaughtError {
  ErrorKind kind;
  std::string message;
};
CaughtError caught_error(ErrorKind stage);

// Internal errors this process has met in results (from its own stages or
// from worker processes, counted where they cross into C++ from protobuf):
// the test suite fails a test that meets one.
int64_t internal_errors_met();
void note_internal_error();

}  // namespace kiln
