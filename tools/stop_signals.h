// How a server process (`kiln runner`, `kilnd`) stops: SIGINT and SIGTERM
// are taken by one thread with sigwait, which calls `on_stop`; every other
// thread (gRPC starts many) inherits the blocked mask, so none of them is
// interrupted. SIGPIPE is ignored: a client that goes away is an error
// return, not a death.
//
//   StopSignals signals;                 // first thing in main, before any thread
//   Server server(...);
//   signals.on_stop([&](int sig) { server.shutdown(); });
//   server.wait();
#pragma once

#include <signal.h>

#include <functional>
#include <thread>

namespace kiln::cli {

class StopSignals {
 public:
  StopSignals();
  // Joins the waiting thread: call after the server has shut down.
  ~StopSignals();
  // Starts the thread that waits for a signal and then calls fn.
  void on_stop(std::function<void(int signal)> fn);

 private:
  sigset_t set_;
  std::thread waiter_;
};

}  // namespace kiln::cli
