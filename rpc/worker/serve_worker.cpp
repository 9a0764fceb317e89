#include "rpc/worker/serve_worker.h"

#include <signal.h>
#include <unistd.h>

#include "core/error.h"
#include "rpc/process/frame.h"
#include "rpc/worker/build_worker.h"
#include "rpc/worker/run_worker.h"

namespace kiln::rpc {

namespace {

// A kernel's fatal signal must end the worker with that very signal, for its
// supervisor to name it: no handler of anyone's (a sanitizer's, say) may
// turn it into an exit status.
void restore_fatal_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) sigaction(sig, &dfl, nullptr);
}

}  // namespace

int serve_worker(const std::string& role, int fd) {
  if (role != "run" && role != "build") KILN_USER_ERROR() << "unknown worker role '" << role << "' (run, build)";
  restore_fatal_signals();
  RunWorker runs;
  BuildWorker builds;
  proto::WorkerHello hello;
  hello.set_role(role);
  hello.set_pid(getpid());
  if (!write_frame(fd, hello.SerializeAsString())) return 1;
  std::string frame;
  while (read_frame(fd, frame) == FrameRead::kOk) {
    proto::WorkerRequest req;
    if (!req.ParseFromString(frame)) KILN_USER_ERROR() << "worker received a malformed request";
    std::string reply;
    if (role == "run" && req.has_run()) reply = runs.handle(req.run()).SerializeAsString();
    else if (role == "build" && req.has_build()) reply = builds.handle(req.build()).SerializeAsString();
    else KILN_USER_ERROR() << "a " << role << " worker received another kind of request";
    if (!write_frame(fd, reply)) return 1;
  }
  return 0;
}

}  // namespace kiln::rpc
