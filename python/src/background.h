// Long work (a tuning run) in a thread of its own, so that Python's main
// thread stays free: it polls the progress the work reports, draws a
// progress bar, and takes Ctrl-C as KeyboardInterrupt, which it turns into
// stop(): the work finishes the batch in flight, keeps it, and returns.
//
//   job = _kiln.TuneOpJob(...)           # starts at once
//   while not job.wait(0.2): show(job.poll())
//   result = job.result()                # or the work's exception
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "python/src/bindings.h"

namespace kiln::py {

class BackgroundJob {
 public:
  // Runs work(report, stop) in a new thread; report(json) queues a progress
  // event, and the work returns its result as JSON.
  using Work = std::function<nlohmann::json(const std::function<void(nlohmann::json)>& report,
                                            const std::atomic<bool>* stop)>;
  explicit BackgroundJob(Work work);
  // Asks the work to stop and waits for it (without the GIL).
  ~BackgroundJob();

  // True once the work has ended; waits up to timeout_s for it, without the GIL.
  bool wait(double timeout_s);
  // The progress events reported since the last poll, oldest first.
  std::vector<nlohmann::json> poll();
  void stop() { stop_ = true; }
  // Waits for the end; the work's result, or its exception rethrown.
  nlohmann::json result();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<nlohmann::json> events_;
  bool done_ = false;
  nlohmann::json result_;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A JSON value as the Python object json.loads would make.
pyb::object to_python(const nlohmann::json& j);
// A Python object of dicts, lists, strings, numbers, booleans and None as JSON.
nlohmann::json to_json(pyb::handle h);

// Registers the BackgroundJob class (poll, wait, stop, result) as `name`.
void bind_background_job(pyb::module_& m);

}  // namespace kiln::py
