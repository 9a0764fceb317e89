// Kernels of a WebAssembly module (artifact format "wasm_module") in the
// run worker: each runs in V8, the runtime it was tuned for, inside a
// Node.js process the worker keeps (targets/wasm/node_worker.js, its
// "engine"). A run ships the arguments' bytes to the engine and takes every
// argument back (the kernel wrote its output there); a measurement times
// the calls in the engine, as measure_kernel does in this process. The
// engine is supervised like any worker: a trap is the kernel's error, a
// dead engine is started again for the next kernel, and it never outlives
// the run worker.
#pragma once

#include <memory>
#include <string>

#include "rpc/process/worker_process.h"
#include "targets/runtime/loaded_kernel.h"

namespace kiln::rpc {

class WasmEngine {
 public:
  // Finds node on PATH and the engine's script (core/paths.h);
  // throws kiln::Error naming what is missing.
  WasmEngine();

  // One request and its reply (node_worker.js's protocol). Throws
  // kiln::Error when the engine dies or does not answer.
  std::string call(const std::string& request);

 private:
  WorkerProcess node_;
};

// The kernel `name` of the module at `path`, run by `engine`.
std::unique_ptr<LoadedKernel> load_wasm_kernel(WasmEngine& engine, const std::string& path, const std::string& name);

}  // namespace kiln::rpc
