// What the tuner hands a runner and gets back, in plain C++ (the wire form
// is rpc/proto/runner.proto; rpc/convert.h translates).
//
//   MeasureBatch b;
//   b.timing.repeat = 5;
//   b.references.push_back({workload_key(f), build_artifact(lower(f, t), t)});
//   b.candidates.push_back({/*id=*/0, built.artifact, built.args, workload_key(f), 1e-4});
//   std::vector<MeasureResult> rs = runner.measure(b);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error_kind.h"
#include "targets/build.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/timing.h"

namespace kiln::rpc {

// How a runner times each candidate: the runtime's timing rules
// (targets/runtime/timing.h), and what only a runner decides.
struct TimingConfig : TimingOptions {
  double timeout_ms = 10000;  // per candidate
  int threads = 0;            // 0: the device's cores
  uint64_t seed = 1;
  // Screening: a candidate slower than slow_factor × the fastest known
  // (best_known_s, or the fastest of the batch so far) is timed once.
  // 0: off. docs/measurement.md, "Screening slow candidates".
  double slow_factor = 0;
  double best_known_s = 0;  // 0: none known
};

// The program whose output a candidate must reproduce: the workload's
// default schedule, built for the same device; or, with expected_output,
// that output itself (the reference interpreter's, for the batch's seed).
struct ReferenceProgram {
  std::string id;  // the workload key
  Artifact artifact;
  std::string expected_output;  // bytes; empty: run the artifact
};

struct MeasureInput {
  uint64_t id = 0;
  Artifact artifact;
  std::vector<ArgSpec> args;
  std::string reference_id;  // empty: unchecked
  double tolerance = 1e-4;
};

struct MeasureBatch {
  TimingConfig timing;
  std::vector<ReferenceProgram> references;
  std::vector<MeasureInput> candidates;
};

struct MeasureResult {
  uint64_t id = 0;
  ErrorKind error = ErrorKind::kNone;
  std::string message;
  std::vector<double> times_s;  // seconds per run, one per repeat
  int number = 0;
  double max_rel_err = 0;
  double runner_ms = 0;  // the runner's wall time on this candidate
  bool screened = false;  // timed once: slower than the screening cutoff

  bool ok() const { return error == ErrorKind::kNone; }
};

// The device behind a runner (the Info call).
struct DeviceInfo {
  std::string kiln_version;
  std::string device_key;
  std::string cpu_model;
  std::string cpu_name;
  std::vector<std::string> isa_features;
  int num_cores = 0;
  std::vector<std::string> targets;
  std::vector<std::string> gpus;  // besides the CPU: GPU and other OpenCL devices
};

}  // namespace kiln::rpc
