// One operator from workload string to a running kernel: the path shared by
// `kiln bench-op`, `kiln print` and bench/.
//
//   workload string --ops::parse_workload--> Workload
//     --ops::build_workload--> PrimFunc (block form)
//     --lower (tir/transform/lower.h)--> lowered PrimFunc
//     --build_llvm (targets)--> CompiledKernel --> timed runs, checked
//        against the reference interpreter (tir/interp)
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/workload.h"
#include "targets/codegen/llvm/build_llvm.h"
#include "targets/target.h"
#include "tir/schedule/trace.h"
#include "tir/transform/lower.h"

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
  std::function<void(const std::string&, const PrimFunc&)> after_pass;
};

// Lowering options that fit a target (its vector width).
LowerOptions lower_options_for(const Target& target);

// Parses, builds, applies the trace and lowers. Throws kiln::Error for a
// bad workload or a trace that does not fit it (naming the instruction).
OpProgram prepare_op(const std::string& workload, const Target& target, const PrepareOptions& options = {});

// Reads a trace from a JSON file. Throws kiln::Error naming the file.
Trace read_trace_file(const std::string& path);

// Arrays for every parameter of f: inputs filled with seeded random values
// (uniform in [-1, 1], small integers for integer types), the output (the
// last parameter) zeroed.
std::vector<NDArray> make_arguments(const PrimFunc& f, uint64_t seed);

// Runs the kernel `warmup` times, then `repeat` timed times; per-run
// milliseconds (steady clock). Throws kiln::Error on a non-zero kernel status.
std::vector<double> time_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool, int repeat,
                                int warmup = 1);

// Runs the reference interpreter on copies of `inputs` and returns them
// (the output is the last one).
std::vector<NDArray> reference_outputs(const PrimFunc& f, const std::vector<NDArray>& inputs);

// Largest element-wise relative error of `got` against `want`:
// |got - want| / max(|want|, 1), so values of magnitude below 1 are compared
// absolutely. NaN anywhere counts as an infinite error.
double max_relative_error(const NDArray& got, const NDArray& want);

// The tolerance --check applies for a dtype (1e-4 for float32).
double check_tolerance(DataType t);

double median(std::vector<double> v);

}  // namespace kiln
