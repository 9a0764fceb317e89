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
};

// "none", "instantiation", "lowering", "compile", "build_timeout",
// "runtime_error", "timeout", "wrong_answer", "unsupported_target".
const char* error_kind_name(ErrorKind k);
std::optional<ErrorKind> parse_error_kind(const std::string& name);

}  // namespace kiln
