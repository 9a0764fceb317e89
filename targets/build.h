// Code generation's one entry point: a lowered PrimFunc and a target in, a
// kernel out, whichever back end the target's kind needs: LLVM for CPUs,
// the C code generator for CUDA and OpenCL (a module the device builds).
//
//   auto k = build(lower(f, t), t);                  // run it in this process
//   Artifact a = build_artifact(lower(f, t), t);     // ship it to a runner
//   auto k2 = load_artifact(a, "/tmp/kiln-run");     // ... which loads it
#pragma once

#include <memory>
#include <string>

#include "targets/runtime/arguments.h"
#include "targets/runtime/compiled_kernel.h"
#include "targets/target.h"
#include "tir/stmt.h"
#include "tir/transform/split_prepack.h"

namespace kiln {

// A pack of a constant parameter that the artifact's library exports
// beside its kernel (tir/transform/split_prepack.h): the kernel takes the
// packed buffer in the parameter's place, and `kernel_name(param, packed)`
// fills it.
struct ArtifactPrepack {
  int param = 0;
  std::string kernel_name;
  ArgSpec packed;
  bool operator==(const ArtifactPrepack& o) const = default;
};

// A built kernel as bytes: what the builder hands the runner, possibly on
// another machine.
struct Artifact {
  // "shared_library": a library in kiln's kernel ABI (runtime/kernel_abi.h);
  // "wasm_module": the same for WebAssembly, a module a JavaScript runtime
  // loads (targets/wasm/kiln_wasm.js; docs/targets.md, "WebAssembly");
  // "gpu_module": a GPU target's kernels as source with their launches, as
  // JSON (codegen/gpu/build_gpu.h), which the runner's device compiles.
  std::string format;
  std::string data;
  std::string kernel_name;
  std::string target;  // canonical target string it was built for
  std::vector<ArtifactPrepack> prepacks;  // a shared library's packs, run before the kernel
};

// Compiles for this process. Throws kiln::Error when the target cannot be
// built or run here (another triple, a kind without a back end, a schedule
// that does not fit the target, such as GPU thread axes on a CPU).
std::unique_ptr<CompiledKernel> build(const PrimFunc& lowered, const Target& target);

// Compiles into an artifact another process can load. Same errors as build().
Artifact build_artifact(const PrimFunc& lowered, const Target& target);
// The same with packs: `packs[i].func` lowered for `target`, exported from
// the library beside the kernel (a CPU target's shared library).
Artifact build_artifact(const PrimFunc& lowered, const std::vector<Prepack>& lowered_packs, const Target& target);

// Writes the artifact into `dir` (under a name no other load in this
// process used, so the loader never returns a stale copy) and loads it.
// Throws kiln::Error naming what is wrong with it.
std::unique_ptr<CompiledKernel> load_artifact(const Artifact& a, const std::string& dir);

}  // namespace kiln
