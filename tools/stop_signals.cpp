#include "tools/stop_signals.h"

namespace kiln::cli {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

StopSignals::~StopSignals() {
  if (waiter_.joinable()) waiter_.join();
}

void StopSignals::on_stop(std::function<void(int)> fn) {
  waiter_ = std::thread([this, fn = std::move(fn)] {
    int sig = 0;
    sigwait(&set_, &sig);
    fn(sig);
  });
}

}  // namespace kiln::cli
