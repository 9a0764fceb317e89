#include "rpc/builder.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/json.h"
#include "rpc/convert.h"
#include "rpc/proto/worker.pb.h"

namespace kiln::rpc {
namespace {

BuildResult result_of(const WorkerCall& call, double timeout_ms) {
  BuildResult r;
  if (call.status == WorkerCall::kTimeout) {
    r.error = ErrorKind::kBuildTimeout;
    std::ostringstream os;
    os << "building took longer than the limit of " << timeout_ms << " ms";
    r.message = os.str();
    return r;
  }
  if (call.status == WorkerCall::kDied) {
    r.error = ErrorKind::kCompile;
    r.message = "the build worker died: " + call.death;
    return r;
  }
  proto::BuildReply reply;
  if (!reply.ParseFromString(call.reply)) {
    r.error = ErrorKind::kCompile;
    r.message = "the build worker sent a malformed reply";
    return r;
  }
  r.error = from_proto(reply.error_kind());
  r.message = reply.error_message();
  if (r.ok()) {
    r.artifact = from_proto(reply.artifact());
    for (const proto::TensorSpec& s : reply.args()) r.args.push_back(from_proto(s));
  }
  return r;
}

}  // namespace

Builder::Builder(BuilderOptions options) : options_(std::move(options)) {
  if (options_.workers < 1) KILN_USER_ERROR() << "the builder needs at least 1 worker, not " << options_.workers;
  for (int i = 0; i < options_.workers; ++i)
    workers_.push_back(std::make_unique<WorkerProcess>(std::vector<std::string>{options_.kiln, "worker", "--role=build"}));
}

Builder::~Builder() = default;

std::vector<BuildResult> Builder::build(const std::vector<BuildInput>& inputs) {
  // Candidates of one batch usually share their function: serialise each
  // distinct one once.
  std::map<const Object*, std::string> func_json;
  std::vector<std::string> requests(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto [it, fresh] = func_json.try_emplace(inputs[i].func.get());
    if (fresh) it->second = save_json(inputs[i].func);
    proto::WorkerRequest req;
    proto::BuildRequest* b = req.mutable_build();
    b->set_func_json(it->second);
    if (inputs[i].trace) b->set_trace_json(inputs[i].trace->to_json().dump());
    b->set_target(inputs[i].target.str());
    for (int c : inputs[i].constants) b->add_constants(c);
    requests[i] = req.SerializeAsString();
  }

  std::vector<BuildResult> results(inputs.size());
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mu;
  auto work = [&](WorkerProcess& w) {
    try {
      for (size_t i = next++; i < inputs.size(); i = next++) {
        auto t0 = std::chrono::steady_clock::now();
        WorkerCall call = w.call(requests[i], options_.timeout_ms);
        results[i] = result_of(call, options_.timeout_ms);
        results[i].build_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mu);
      if (!failure) failure = std::current_exception();
      next = inputs.size();
    }
  };
  size_t n = std::min(workers_.size(), inputs.size());
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work, std::ref(*workers_[i]));
  if (n > 0) work(*workers_[0]);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  return results;
}

}  // namespace kiln::rpc
