// The builder: turns (function, trace, target) candidates into artifacts a
// runner can load, in parallel worker processes (rpc/worker/build_worker.h)
// with a time limit per candidate.
//
//   Builder b({.workers = 2, .timeout_ms = 30000});
//   std::vector<BuildResult> rs = b.build({{f, trace, target}, ...});
//   rs[i].ok() ? rs[i].artifact : rs[i].error, rs[i].message
//
// Every candidate gets a result, in input order: an error kind
// (instantiation, lowering, compile, build_timeout) is a result, not an
// exception. Workers stay up between batches; one that hangs or crashes is
// replaced. The tuner builds a batch, then measures it, so that builds never
// compete with measurements for the CPU.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error_kind.h"
#include "rpc/process/worker_process.h"
#include "targets/build.h"
#include "targets/runtime/arguments.h"
#include "targets/target.h"
#include "tir/schedule/trace.h"

namespace kiln::rpc {

struct BuildInput {
  PrimFunc func;               // unscheduled
  std::optional<Trace> trace;  // none: the default program
  Target target;
  // Parameters that are constants (a model's weights): their packs are
  // built beside the kernel (tir/transform/split_prepack.h).
  std::vector<int> constants = {};
};

struct BuildResult {
  ErrorKind error = ErrorKind::kNone;
  std::string message;
  Artifact artifact;
  std::vector<ArgSpec> args;
  double build_ms = 0;  // wall time in the builder, this candidate alone

  bool ok() const { return error == ErrorKind::kNone; }
};

struct BuilderOptions {
  int workers = 1;
  double timeout_ms = 30000;
  // The kiln executable the workers run (rpc/process/child_process.h).
  std::string kiln = kiln_binary();
};

class Builder {
 public:
  explicit Builder(BuilderOptions options = {});
  ~Builder();

  // Throws kiln::Error only when a worker cannot be started at all.
  std::vector<BuildResult> build(const std::vector<BuildInput>& inputs);

  int workers() const { return static_cast<int>(workers_.size()); }

 private:
  BuilderOptions options_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
};

}  // namespace kiln::rpc
