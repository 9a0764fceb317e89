// The runner's worker: loads one candidate at a time, checks its output
// against the reference and times it (RunRequest in rpc/proto/worker.proto).
// It runs untrusted, possibly broken code, so it lives in its own process:
// if a kernel crashes or hangs, this process dies or is killed, and the
// runner that supervises it (rpc/runner/) reports the candidate and starts
// another.
//
// Between candidates it keeps what does not depend on the candidate: the
// seeded inputs (regenerated only when the arguments or seed change, and
// copied afresh for every candidate, so a kernel that scribbles on its
// inputs cannot spoil the next one's check), reference outputs, and the
// thread pool.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rpc/proto/worker.pb.h"
#include "rpc/worker/wasm_kernel.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/thread_pool.h"

namespace kiln::rpc {

class RunWorker {
 public:
  proto::RunReply handle(const proto::RunRequest& request);

 private:
  // Fresh copies of the seeded inputs for `specs`, output zeroed.
  std::vector<NDArray>& arguments(const std::vector<ArgSpec>& specs, uint64_t seed);
  const NDArray& reference(const std::string& path, const ArgSpec& output);
  ThreadPool& pool(int threads);
  // The artifact's kernel `name`: a shared library's in this process, a
  // WebAssembly module's in the engine (wasm_kernel.h), started on first use.
  std::unique_ptr<LoadedKernel> load(const std::string& format, const std::string& path, const std::string& name);

  std::string inputs_key_;
  std::vector<NDArray> pristine_, working_;
  std::map<std::string, NDArray> references_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<WasmEngine> wasm_;
};

// A run worker's whole life on the frame socket `fd` (serve_frames.h):
// `kiln worker --role=run`, and the run worker cross-built for another CPU.
int serve_runs(int fd);

}  // namespace kiln::rpc
