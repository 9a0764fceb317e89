#include "rpc/worker/build_worker.h"

#include "core/error.h"
#include "core/json.h"
#include "rpc/convert.h"
#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "tir/analysis/verify.h"
#include "tir/schedule/schedule.h"

namespace kiln::rpc {
namespace {

proto::BuildReply failure(proto::ErrorKind kind, const std::string& message) {
  proto::BuildReply r;
  r.set_error_kind(kind);
  r.set_error_message(message);
  return r;
}

}  // namespace

proto::BuildReply BuildWorker::handle(const proto::BuildRequest& req) {
  PrimFunc scheduled, lowered;
  std::optional<Target> target;
  try {
    if (req.func_json() != func_json_) {
      func_json_.clear();
      func_ = load_json_as<PrimFunc>(req.func_json());
      verify(func_);  // from another process: checked before use
      func_json_ = req.func_json();
    }
    target = Target::parse(req.target());
    scheduled = req.trace_json().empty() ? default_program(func_, *target) : apply_trace(Trace::parse(req.trace_json()), func_).func();
  } catch (const std::exception& e) {
    return failure(proto::INSTANTIATION, e.what());
  }
  try {
    lowered = lower(scheduled, *target);
  } catch (const std::exception& e) {
    return failure(proto::LOWERING, e.what());
  }
  proto::BuildReply reply;
  try {
    to_proto(build_artifact(lowered, *target), reply.mutable_artifact());
  } catch (const std::exception& e) {
    return failure(proto::COMPILE, e.what());
  }
  for (const ArgSpec& s : arg_specs(func_)) to_proto(s, reply.add_args());
  return reply;
}

}  // namespace kiln::rpc
