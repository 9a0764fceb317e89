// A compiled model: what `kiln compile` writes and `kiln run` loads.
//
//   OUT/kernels.so    one kernel per task ("task0", "task1", ...): every fused
//                     group calls its task's kernel
//   OUT/model.json    the model's inputs and outputs, the calls in order
//                     (kernel, argument values), where each value lives:
//                     the caller's input or output, the weights, or an
//                     offset in the arena of the static memory plan
//   OUT/weights.bin   the constants kernels read, each 64-byte aligned
//
// Running it needs no LLVM and no graph: the library, the plan and the
// weights. The arena is allocated once per CompiledModel and reused by
// every run; runs of one CompiledModel do not overlap.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/fuse.h"
#include "graph/graph.h"
#include "graph/tasks.h"
#include "targets/runtime/compiled_kernel.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_pool.h"
#include "targets/target.h"

namespace kiln::graph {

inline constexpr int kCompiledModelVersion = 1;

// Whether a target string names WebAssembly: such a model is written as
// kernels.wasm with kiln_wasm.js and kiln_model.js beside its plan and
// weights, and runs in a JavaScript runtime, not through CompiledModel.
bool is_wasm_target(const std::string& target);


// Writes the model into `dir` (created if missing). `scheduled[t]` is task
// t's function as it should run (block form: tuned, or the default
// program); each is lowered for `target` and compiled, on up to `threads`
// threads.
void write_compiled_model(const Graph& g, const std::vector<FusedGroup>& groups, const std::vector<Task>& tasks,
                          const std::vector<PrimFunc>& scheduled, const Target& target, const std::string& dir,
                          int threads);

struct TensorInfo {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
};

// A compiled folder's plan: its target, inputs and outputs, read without
// loading its kernels (what `kiln run` needs of a wasm32 model). Throws
// kiln::Error naming the file and what is wrong with it.
struct CompiledModelPlan {
  std::string target;
  std::vector<TensorInfo> inputs, outputs;
};
CompiledModelPlan read_compiled_model_plan(const std::string& dir);

// What `kiln run --profile` names a call by.
struct CallInfo {
  std::string kernel;  // "task3"
  std::string name;    // its group's operators, "Conv+Add+Relu" (the kernel's name in older plans)
};

class CompiledModel {
 public:
  // Throws kiln::Error naming the file and what is wrong with it.
  static CompiledModel load(const std::string& dir);
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;
  ~CompiledModel();

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  const std::string& target() const;
  int64_t arena_bytes() const;
  size_t num_calls() const;
  CallInfo call_info(size_t k) const;

  // One inference. Throws kiln::Error for inputs of the wrong number, dtype
  // or shape, and for a kernel that fails (naming it). With `call_seconds`,
  // adds each call's time to its entry (resized to num_calls()): two clock
  // reads a call, so the plain run leaves it null.
  std::vector<NDArray> run(const std::vector<NDArray>& inputs, ThreadPool& pool,
                           std::vector<double>* call_seconds = nullptr);

 private:
  CompiledModel();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `imported` run compiled: the graph passes, fusion, every task's default
// program for `target`, written into `dir` and loaded, then one run on
// `inputs` (2 threads). What checks the compiler against the reference on
// test data (`kiln graph --test-data DIR --compiled`, the suite's compiled
// conformance tests).
std::vector<NDArray> run_compiled_default(const Graph& imported, const std::vector<NDArray>& inputs,
                                          const Target& target, const std::string& dir);

}  // namespace kiln::graph
