#include "rpc/runner/request_check.h"

#include "core/error.h"
#include "rpc/convert.h"

namespace kiln::rpc {
namespace {

// Refuses timing settings no measurement can follow.
grpc::Status check_timing(const proto::TimingConfig& t) {
  if (t.repeat() < 1) return {grpc::StatusCode::INVALID_ARGUMENT, "timing.repeat must be at least 1"};
  if (t.number() < 0 || t.warmup() < 0 || t.min_repeat_ms() < 0 || t.threads() < 0)
    return {grpc::StatusCode::INVALID_ARGUMENT, "timing.number, warmup, min_repeat_ms and threads must not be negative"};
  if (!(t.timeout_ms() > 0)) return {grpc::StatusCode::INVALID_ARGUMENT, "timing.timeout_ms must be positive"};
  if (!(t.slow_factor() == 0 || t.slow_factor() >= 1) || !(t.best_known_s() >= 0))
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "timing.slow_factor must be 0 (off) or at least 1, and timing.best_known_s not negative"};
  return grpc::Status::OK;
}

}  // namespace

grpc::Status check_protocol_version(uint32_t v) {
  if (v == kProtocolVersion) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                      "protocol version " + std::to_string(v) + " is not this runner's version " +
                          std::to_string(kProtocolVersion));
}

grpc::Status check_measure_request(const proto::MeasureRequest& req) {
  if (grpc::Status s = check_protocol_version(req.protocol_version()); !s.ok()) return s;
  if (grpc::Status s = check_timing(req.timing()); !s.ok()) return s;
  for (const proto::Candidate& c : req.candidates()) {
    if (c.reference_id().empty()) continue;
    bool found = false;
    for (const proto::Reference& r : req.references()) found = found || r.id() == c.reference_id();
    if (!found)
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "candidate " + std::to_string(c.id()) + " names reference '" + c.reference_id() +
                  "', which the request does not hold"};
  }
  return grpc::Status::OK;
}

std::string artifact_refusal(const proto::Artifact& a, const Target& device, const std::vector<GpuDevice>& gpus) {
  try {
    Target t = Target::parse(a.target());
    if (t.is_gpu()) {
      std::string why = "this runner has no " + t.kind() + " device";
      for (const GpuDevice& g : gpus) {
        if (g.target.kind() != t.kind()) continue;
        why = t.cannot_run_on(g.target);
        if (why.empty()) return "";
        why = "its " + t.kind() + " device (" + g.name + ") cannot run target " + t.str() + ": " + why;
      }
      return why;
    }
    std::string why = t.cannot_run_on(device);
    if (why.empty()) return "";
    return "this device (" + device.str() + ") cannot run target " + t.str() + ": " + why;
  } catch (const Error& e) {
    return std::string("cannot read the artifact's target: ") + e.what();
  }
}

}  // namespace kiln::rpc
