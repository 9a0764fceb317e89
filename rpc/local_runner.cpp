#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "rpc/runner/stream.h"
#include "rpc/runner_client.h"

namespace kiln::rpc {
namespace {

// How long a fresh `kiln runner` may take to say it listens.
constexpr int kStartupMs = 60000;
// The line `kiln runner` prints once it serves (tools/cmd_runner.cpp).
constexpr const char* kReadyPrefix = "kiln runner: listening on ";

}  // namespace

struct LocalRunner::Connection {
  std::unique_ptr<proto::Runner::Stub> stub;
};

LocalRunner::LocalRunner(LocalRunnerOptions options) : options_(std::move(options)), dir_("kiln-runner") {
  address_ = "unix:" + dir_.path() + "/runner.sock";
  ensure_running();
}

LocalRunner::~LocalRunner() {
  conn_.reset();
  child_.kill();
}

void LocalRunner::ensure_running() {
  if (child_.running()) return;
  std::error_code ec;
  std::filesystem::remove(dir_.path() + "/runner.sock", ec);
  std::vector<std::string> argv = {options_.kiln, "runner", "--listen", address_, "--workdir", dir_.path() + "/work"};
  argv.insert(argv.end(), options_.args.begin(), options_.args.end());
  std::string seen;
  const bool ready = spawn_until_line(child_, argv, kReadyPrefix, kStartupMs, seen).has_value();
  if (!ready) {
    child_.wait_or_kill(1000);
    KILN_USER_ERROR() << "the local runner (" << options_.kiln << " runner) did not start: "
                      << (child_.running() ? "no ready line within " + std::to_string(kStartupMs) + " ms"
                                           : child_.exit_description())
                      << (seen.empty() ? "" : "; it printed: " + seen);
  }
  ++starts_;
  conn_ = std::make_unique<Connection>(Connection{make_runner_stub(address_)});
}

DeviceInfo LocalRunner::info() {
  ensure_running();
  return runner_info(*conn_->stub, address_, "");
}

std::vector<MeasureResult> LocalRunner::measure(const MeasureBatch& batch, const ResultCallback& on_result) {
  std::vector<MeasureResult> results(batch.candidates.size());
  std::set<size_t> pending;
  for (size_t i = 0; i < batch.candidates.size(); ++i) pending.insert(i);
  std::vector<int> deaths(batch.candidates.size(), 0);
  auto deliver = [&](size_t i, MeasureResult r) {
    results[i] = std::move(r);
    pending.erase(i);
    if (on_result) on_result(results[i]);
  };

  while (!pending.empty()) {
    ensure_running();
    grpc::Status s = measure_stream(*conn_->stub, "", batch, {pending.begin(), pending.end()}, deliver);
    if (pending.empty()) break;
    // The stream ended early. A refusal of the request is the caller's to
    // see; anything else means the runner died or broke: restart it.
    const bool alive = child_.running();
    if (alive && s.error_code() != grpc::StatusCode::UNAVAILABLE && s.error_code() != grpc::StatusCode::CANCELLED &&
        s.error_code() != grpc::StatusCode::INTERNAL && s.error_code() != grpc::StatusCode::UNKNOWN && !s.ok())
      KILN_USER_ERROR() << describe_failure(address_, s);
    if (alive) child_.kill();
    // Measured in order: the first unanswered candidate was on the device
    // when the runner went. Twice is not chance: give it a result.
    size_t in_flight = *pending.begin();
    if (++deaths[in_flight] >= 2) {
      MeasureResult r;
      r.id = batch.candidates[in_flight].id;
      r.error = ErrorKind::kRuntimeError;
      r.message = "the runner died twice while measuring this candidate (last: " + child_.exit_description() + ")";
      deliver(in_flight, std::move(r));
    }
  }
  return results;
}

}  // namespace kiln::rpc
