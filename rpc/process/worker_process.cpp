#include "rpc/process/worker_process.h"

#include <unistd.h>

#include <chrono>

#include "core/error.h"
#include "rpc/process/frame.h"

namespace kiln::rpc {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after_ms(double ms) {
  return Clock::now() + std::chrono::microseconds(static_cast<int64_t>(ms * 1000));
}

}  // namespace

WorkerProcess::WorkerProcess(std::vector<std::string> argv, int startup_timeout_ms)
    : argv_(std::move(argv)), startup_timeout_ms_(startup_timeout_ms) {}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::stop() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  child_.kill();
}

void WorkerProcess::start() {
  if (child_.running() && fd_ >= 0) return;
  stop();
  auto [parent_end, child_end] = frame_socket_pair();
  try {
    child_ = ChildProcess::spawn(argv_, {child_end});
  } catch (...) {
    close(parent_end);
    close(child_end);
    throw;
  }
  close(child_end);
  fd_ = parent_end;
  ++starts_;
  std::string hello;
  FrameRead r = read_frame(fd_, hello, after_ms(startup_timeout_ms_));
  if (r != FrameRead::kOk) {
    std::string why = "no answer within " + std::to_string(startup_timeout_ms_) + " ms";
    if (r == FrameRead::kClosed) {
      child_.wait_or_kill(5000);
      why = child_.exit_description();
    }
    stop();
    KILN_USER_ERROR() << "worker " << argv_[0] << " did not start: " << why;
  }
}

WorkerCall WorkerProcess::call(const std::string& request, double timeout_ms) {
  start();
  WorkerCall out;
  FrameRead r = FrameRead::kClosed;
  if (write_frame(fd_, request)) r = read_frame(fd_, out.reply, after_ms(timeout_ms));
  if (r == FrameRead::kOk) return out;
  if (r == FrameRead::kTimeout) {
    out.status = WorkerCall::kTimeout;
    stop();
    return out;
  }
  // The worker closed its end: it is exiting, or has; give it a moment to
  // finish dying so its status names the cause.
  close(fd_);
  fd_ = -1;
  child_.wait_or_kill(5000);
  out.status = WorkerCall::kDied;
  out.death = child_.exit_description();
  return out;
}

}  // namespace kiln::rpc
