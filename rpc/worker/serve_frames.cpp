#include "rpc/worker/serve_frames.h"

#include <signal.h>
#include <unistd.h>

#include "core/error.h"
#include "rpc/process/frame.h"

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

int serve_frames(const std::string& role, int fd, const FrameHandler& handle) {
  restore_fatal_signals();
  proto::WorkerHello hello;
  hello.set_role(role);
  hello.set_pid(getpid());
  if (!write_frame(fd, hello.SerializeAsString())) return 1;
  std::string frame;
  while (read_frame(fd, frame) == FrameRead::kOk) {
    proto::WorkerRequest req;
    if (!req.ParseFromString(frame)) KILN_USER_ERROR() << "worker received a malformed request";
    if (!write_frame(fd, handle(req))) return 1;
  }
  return 0;
}

}  // namespace kiln::rpc
