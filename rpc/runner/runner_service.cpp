#include "rpc/runner/runner_service.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "rpc/convert.h"
#include "rpc/grpc_util.h"
#include "rpc/proto/worker.pb.h"
#include "rpc/runner/device.h"
#include "rpc/runner/request_check.h"
#include "targets/runtime/timing.h"

namespace kiln::rpc {
namespace {

using Clock = std::chrono::steady_clock;

std::string format_ms(double ms) {
  std::ostringstream os;
  os << ms << " ms";
  return os.str();
}

// Below this a run is too short for screening to save anything worth a
// first run's noise (code faulted in, the pool waking up): timing every
// repeat costs less than loading the candidate.
constexpr double kScreenFloorS = 1e-3;

proto::MeasureResult failed(const proto::Candidate& c, proto::ErrorKind kind, const std::string& message) {
  proto::MeasureResult r;
  r.set_protocol_version(kProtocolVersion);
  r.set_candidate_id(c.id());
  r.set_error_kind(kind);
  r.set_error_message(message);
  return r;
}

}  // namespace

RunnerService::RunnerService(RunnerOptions options)
    : options_(std::move(options)),
      info_(describe_device(options_.device, options_.device_key, options_.gpus)),
      worker_(run_worker_argv(options_.device, options_.kiln)) {
  std::filesystem::create_directories(options_.workdir);
  worker_.start();
}

RunnerService::~RunnerService() = default;

grpc::Status RunnerService::authenticate(const grpc::ServerContext& ctx) const {
  if (options_.token.empty()) return grpc::Status::OK;
  if (same_secret(presented_token(ctx), options_.token)) return grpc::Status::OK;
  return {grpc::StatusCode::UNAUTHENTICATED, "this runner needs a token: the request carried none or a wrong one"};
}

grpc::Status RunnerService::Info(grpc::ServerContext* ctx, const proto::InfoRequest* req, proto::InfoReply* reply) {
  if (grpc::Status s = authenticate(*ctx); !s.ok()) return s;
  if (grpc::Status s = check_protocol_version(req->protocol_version()); !s.ok()) return s;
  reply->set_protocol_version(kProtocolVersion);
  to_proto(info_, reply);
  return grpc::Status::OK;
}

grpc::Status RunnerService::Measure(grpc::ServerContext* ctx, const proto::MeasureRequest* req,
                                    grpc::ServerWriter<proto::MeasureResult>* writer) {
  if (grpc::Status s = authenticate(*ctx); !s.ok()) return s;
  if (grpc::Status s = check_measure_request(*req); !s.ok()) return s;
  // Screening: the cutoff follows the fastest time known, the client's or
  // this request's, so that even a first batch stops timing the slow ones.
  double fastest = req->timing().best_known_s() > 0 ? req->timing().best_known_s()
                                                    : std::numeric_limits<double>::infinity();
  for (const proto::Candidate& c : req->candidates()) {
    if (ctx->IsCancelled()) return {grpc::StatusCode::CANCELLED, "the client went away"};
    const double factor = req->timing().slow_factor();
    const double screen_above_s = factor > 0 && std::isfinite(fastest) ? std::max(factor * fastest, kScreenFloorS) : 0;
    proto::MeasureResult r;
    {
      std::lock_guard<std::mutex> lock(device_mu_);
      auto t0 = Clock::now();
      try {
        r = measure_one(c, *req, screen_above_s);
      } catch (...) {
        // The runner's own trouble (a full disk, a worker that cannot
        // start): still a result for this candidate, and the next one tries again.
        CaughtError e = caught_error(ErrorKind::kRuntimeError);
        r = failed(c, to_proto(e.kind), "the runner could not measure it: " + e.message);
      }
      r.set_runner_ms(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    if (r.error_kind() == proto::NONE && !r.screened() && r.times_s_size() > 0) {
      std::vector<double> times(r.times_s().begin(), r.times_s().end());
      fastest = std::min(fastest, median(times));
    }
    if (!writer->Write(r)) return {grpc::StatusCode::CANCELLED, "the client went away"};
  }
  return grpc::Status::OK;
}

std::string RunnerService::write_artifact(const proto::Artifact& a) {
  std::string path = (std::filesystem::path(options_.workdir) / ("artifact-" + std::to_string(next_file_++) + ".so")).string();
  std::ofstream out(path, std::ios::binary);
  out.write(a.data().data(), static_cast<std::streamsize>(a.data().size()));
  if (!out) KILN_USER_ERROR() << "cannot write " << path;
  return path;
}

std::string RunnerService::reference_path(const proto::Reference& ref, const proto::Candidate& c,
                                          const proto::MeasureRequest& req, std::string* error) {
  // One output per (reference, seed, arguments): a hash of them names the file.
  std::ostringstream key;
  key << ref.id() << '/' << req.timing().seed();
  for (const proto::TensorSpec& s : c.args()) {
    key << '/' << s.dtype() << (s.is_output() ? '!' : ':');
    for (int64_t d : s.shape()) key << d << ',';
  }
  std::ostringstream name;
  name << "reference-" << std::hex << std::hash<std::string>{}(key.str()) << ".bin";
  std::string path = (std::filesystem::path(options_.workdir) / name.str()).string();
  if (std::filesystem::exists(path)) return path;
  if (!ref.expected_output().empty()) {
    // The client's own reference output: written as the worker would have
    // written it, checked for size where the worker reads it.
    std::ofstream out(path, std::ios::binary);
    out.write(ref.expected_output().data(), static_cast<std::streamsize>(ref.expected_output().size()));
    if (!out) *error = "cannot write " + path;
    return error->empty() ? path : "";
  }
  if (std::string why = refusal(ref.artifact()); !why.empty()) {
    *error = "the reference program: " + why;
    return "";
  }

  proto::WorkerRequest wr;
  proto::RunRequest* run = wr.mutable_run();
  run->set_artifact_path(write_artifact(ref.artifact()));
  run->set_kernel_name(ref.artifact().kernel_name());
  run->set_artifact_format(ref.artifact().format());
  *run->mutable_args() = c.args();
  *run->mutable_timing() = req.timing();
  run->set_reference_path(path);
  run->set_compute_reference(true);
  // The default program is slow by nature: give it far longer than a candidate.
  const double limit = std::max(120000.0, 20 * req.timing().timeout_ms());
  WorkerCall call = worker_.call(wr.SerializeAsString(), limit);
  std::filesystem::remove(run->artifact_path());
  proto::RunReply reply;
  if (call.status == WorkerCall::kTimeout) *error = "the reference program took longer than " + format_ms(limit);
  else if (call.status == WorkerCall::kDied) *error = "the reference program crashed: worker " + call.death;
  else if (!reply.ParseFromString(call.reply)) *error = "the worker sent a malformed reply";
  else if (reply.error_kind() != proto::NONE) *error = "the reference program failed: " + reply.error_message();
  return error->empty() ? path : "";
}

std::string RunnerService::refusal(const proto::Artifact& a) const {
  return artifact_refusal(a, options_.device, options_.gpus);
}

proto::MeasureResult RunnerService::measure_one(const proto::Candidate& c, const proto::MeasureRequest& req,
                                                double screen_above_s) {
  if (std::string why = refusal(c.artifact()); !why.empty()) return failed(c, proto::UNSUPPORTED_TARGET, why);

  std::string ref_path;
  if (!c.reference_id().empty()) {
    for (const proto::Reference& ref : req.references()) {
      if (ref.id() != c.reference_id()) continue;
      std::string error;
      ref_path = reference_path(ref, c, req, &error);
      if (!error.empty()) return failed(c, proto::RUNTIME_ERROR, error);
    }
  }

  proto::WorkerRequest wr;
  proto::RunRequest* run = wr.mutable_run();
  run->set_artifact_path(write_artifact(c.artifact()));
  run->set_artifact_format(c.artifact().format());
  run->set_kernel_name(c.artifact().kernel_name());
  *run->mutable_prepacks() = c.artifact().prepacks();
  *run->mutable_args() = c.args();
  *run->mutable_timing() = req.timing();
  run->set_reference_path(ref_path);
  run->set_tolerance(c.tolerance());
  run->set_screen_above_s(screen_above_s);
  WorkerCall call = worker_.call(wr.SerializeAsString(), req.timing().timeout_ms());
  std::filesystem::remove(run->artifact_path());

  if (call.status == WorkerCall::kTimeout)
    return failed(c, proto::TIMEOUT,
                  "the candidate did not finish within the limit of " + format_ms(req.timing().timeout_ms()) +
                      " (loading, the checked run and timing); its worker was killed");
  if (call.status == WorkerCall::kDied)
    return failed(c, proto::RUNTIME_ERROR, "the candidate crashed its worker: " + call.death);
  proto::RunReply reply;
  if (!reply.ParseFromString(call.reply)) return failed(c, proto::RUNTIME_ERROR, "the worker sent a malformed reply");
  proto::MeasureResult r = failed(c, reply.error_kind(), reply.error_message());
  *r.mutable_times_s() = reply.times_s();
  r.set_number(reply.number());
  r.set_max_rel_err(reply.max_rel_err());
  r.set_screened(reply.screened());
  return r;
}

}  // namespace kiln::rpc
