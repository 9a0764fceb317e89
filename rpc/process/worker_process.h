// A persistent worker process that serves one request at a time, and the
// supervision that makes a crash or a hang cost one request, never the
// parent: the builder compiles in workers (a hang is a build timeout, an
// LLVM crash a compile error), the runner runs candidates in one (a crash
// is a runtime_error, a hang a timeout).
//
//   WorkerProcess w({kiln_binary(), "worker", "--role=run"});
//   WorkerCall r = w.call(request_bytes, /*timeout_ms=*/10000);
//   if (r.status == WorkerCall::kDied) ... r.death   // "killed by signal 11 (SIGSEGV, ...)"
//
// The worker is started on first use and again after it dies or is killed,
// so the next call always finds a fresh one. Its protocol: it sends a hello
// frame (WorkerHello) when ready, then answers each request frame with one
// reply frame (rpc/proto/worker.proto).
#pragma once

#include <string>
#include <vector>

#include "rpc/process/child_process.h"

namespace kiln::rpc {

struct WorkerCall {
  enum Status { kOk, kTimeout, kDied } status = kOk;
  std::string reply;  // kOk: the reply frame
  std::string death;  // kDied: how the worker ended
};

class WorkerProcess {
 public:
  // `argv[0]` is the executable's path.
  explicit WorkerProcess(std::vector<std::string> argv, int startup_timeout_ms = 60000);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends `request` and waits at most timeout_ms for the reply. On timeout
  // the worker is killed. Throws kiln::Error only when a worker cannot be
  // started at all (missing binary, no hello within the startup timeout).
  WorkerCall call(const std::string& request, double timeout_ms);

  // Starts the worker now rather than on the first call.
  void start();
  // Kills the worker (the next call starts another).
  void stop();
  // The running worker's pid, -1 when none runs.
  int pid() const { return child_.pid(); }
  // How many workers have been started in all.
  int starts() const { return starts_; }

 private:
  std::vector<std::string> argv_;
  int startup_timeout_ms_;
  ChildProcess child_;
  int fd_ = -1;  // the parent's end of the frame socket
  int starts_ = 0;
};

}  // namespace kiln::rpc
