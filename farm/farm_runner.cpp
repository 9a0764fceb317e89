#include "farm/farm_runner.h"

#include <chrono>
#include <condition_variable>
#include <thread>

#include "core/error.h"
#include "rpc/runner/stream.h"

namespace kiln::farm {
namespace {

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// One runner's share of a batch, measured on its own thread.
struct Share {
  std::string address;
  std::vector<size_t> which;
  std::thread thread;
  std::mutex mu;  // guards ctx and finished
  grpc::ClientContext* ctx = nullptr;
  bool finished = false;
  bool lost = false;
  grpc::Status status;
  int64_t measured = 0, errors = 0;
};

}  // namespace

FarmRunner::FarmRunner(RunnerRegistry& registry, FarmRunnerOptions options) : registry_(registry), o_(std::move(options)) {}

std::vector<RegisteredRunner> FarmRunner::wait_for_runners() {
  bool said = false;
  for (;;) {
    std::vector<RegisteredRunner> live = registry_.live(o_.device_key, o_.runner_timeout_s);
    if (!live.empty()) {
      if (said && o_.on_wait) o_.on_wait(std::to_string(live.size()) + " runner(s) of key '" + o_.device_key + "' live again");
      return live;
    }
    if (!said && o_.on_wait)
      o_.on_wait("waiting for a runner of key '" + o_.device_key + "': none is live (kiln farm status lists them)");
    said = true;
    if (o_.stop && o_.stop->load()) KILN_USER_ERROR() << "stopped while waiting for a runner of key '" << o_.device_key << "'";
    sleep_s(o_.poll_s);
  }
}

rpc::proto::Runner::Stub& FarmRunner::stub(const std::string& address) {
  auto& s = stubs_[address];
  if (!s) s = rpc::make_runner_stub(address, o_.tls_ca);
  return *s;
}

rpc::DeviceInfo FarmRunner::info() { return wait_for_runners().front().info; }

std::vector<rpc::MeasureResult> FarmRunner::measure(const rpc::MeasureBatch& batch, const rpc::ResultCallback& on_result) {
  const size_t n = batch.candidates.size();
  std::vector<rpc::MeasureResult> results(n);
  std::vector<bool> done(n, false);
  std::mutex mu;  // guards results, done and on_result
  std::mutex ended_mu;  // with ended_cv: a share has ended
  std::condition_variable ended_cv;
  size_t ended = 0;
  std::vector<size_t> pending(n);
  for (size_t i = 0; i < n; ++i) pending[i] = i;
  bool first_round = true;
  // A runner that fails this batch twice (it refuses it, or dies again) is
  // not given the rest of it.
  std::map<std::string, int> failures;
  std::string last_failure;

  while (!pending.empty()) {
    if (!first_round) resent_ += static_cast<int64_t>(pending.size());
    first_round = false;
    std::vector<RegisteredRunner> live;
    for (RegisteredRunner& r : wait_for_runners())
      if (failures[r.address] < 2) live.push_back(std::move(r));
    if (live.empty())
      KILN_USER_ERROR() << "every live runner of key '" << o_.device_key << "' failed this batch twice; the last: "
                        << last_failure;
    // Contiguous slices, one per runner, as even as they come.
    const size_t k = std::min(live.size(), pending.size());
    std::vector<std::unique_ptr<Share>> shares;
    for (size_t r = 0, start = 0; r < k; ++r) {
      const size_t len = pending.size() / k + (r < pending.size() % k ? 1 : 0);
      auto sh = std::make_unique<Share>();
      sh->address = live[r].address;
      sh->which.assign(pending.begin() + static_cast<long>(start), pending.begin() + static_cast<long>(start + len));
      start += len;
      shares.push_back(std::move(sh));
    }
    for (auto& sh : shares) {
      registry_.set_busy(sh->address, o_.job);
      rpc::proto::Runner::Stub& st = stub(sh->address);
      Share* s = sh.get();
      s->thread = std::thread([&, s, &st = st] {
        grpc::Status status = rpc::measure_stream(
            st, o_.token, batch, s->which,
            [&](size_t i, rpc::MeasureResult m) {
              std::lock_guard<std::mutex> lock(mu);
              if (done[i]) return;
              ++(m.ok() ? s->measured : s->errors);
              results[i] = std::move(m);
              done[i] = true;
              if (on_result) on_result(results[i]);
            },
            [&](grpc::ClientContext& ctx) {
              std::lock_guard<std::mutex> lock(s->mu);
              s->ctx = &ctx;
              if (s->lost) ctx.TryCancel();
            });
        {
          std::lock_guard<std::mutex> lock(s->mu);
          s->ctx = nullptr;
          s->finished = true;
          s->status = status;
        }
        std::lock_guard<std::mutex> lock(ended_mu);
        ++ended;
        ended_cv.notify_all();
      });
    }
    // Watch the runners until every share has ended: a lost one's call is
    // cancelled, and its unanswered candidates go round again.
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(ended_mu);
        if (ended_cv.wait_for(lock, std::chrono::duration<double>(o_.poll_s), [&] { return ended == shares.size(); }))
          break;
      }
      for (auto& sh : shares) {
        {
          std::lock_guard<std::mutex> lock(sh->mu);
          if (sh->finished || sh->lost) continue;
        }
        if (registry_.is_live(sh->address, o_.runner_timeout_s)) continue;
        std::lock_guard<std::mutex> lock(sh->mu);
        sh->lost = true;
        if (sh->ctx) sh->ctx->TryCancel();
      }
    }
    {
      std::lock_guard<std::mutex> lock(ended_mu);
      ended = 0;
    }
    for (auto& sh : shares) {
      sh->thread.join();
      registry_.set_busy(sh->address, 0);
      registry_.count(sh->address, sh->measured, sh->errors);
      size_t unanswered = 0;
      for (size_t i : sh->which) unanswered += done[i] ? 0 : 1;
      if (unanswered == 0) continue;
      ++failures[sh->address];
      last_failure = sh->lost ? sh->address + " is lost" : rpc::describe_failure(sh->address, sh->status);
      if (o_.on_wait)
        o_.on_wait("runner " + sh->address + (sh->lost ? " is lost (no heartbeat)" : " failed: " + last_failure) +
                   "; " + std::to_string(unanswered) + " candidate(s) go to another runner of key '" + o_.device_key + "'");
    }
    std::vector<size_t> left;
    for (size_t i : pending)
      if (!done[i]) left.push_back(i);
    pending = std::move(left);
  }
  return results;
}

}  // namespace kiln::farm
