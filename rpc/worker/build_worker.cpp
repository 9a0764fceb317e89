#include "rpc/worker/build_worker.h"

#include "core/error.h"
#include "core/json.h"
#include "rpc/convert.h"
#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "tir/analysis/verify.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/split_prepack.h"

namespace kiln::rpc {
namespace {

// The reply for what a stage threw (call inside the catch block): the
// stage's kind, or internal for a compiler bug.
proto::BuildReply failure(ErrorKind stage) {
  CaughtError e = caught_error(stage);
  proto::BuildReply r;
  r.set_error_kind(to_proto(e.kind));
  r.set_error_message(e.message);
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
  } catch (...) {
    return failure(ErrorKind::kInstantiation);
  }
  // The packs of constant parameters go beside the kernel, which the runner
  // then times as a compiled model runs it: on weights packed beforehand.
  std::vector<Prepack> packs;
  try {
    std::vector<size_t> constants(req.constants().begin(), req.constants().end());
    SplitPrepack split = target->is_cpu() ? split_prepack(scheduled, constants) : SplitPrepack{scheduled, {}};
    lowered = lower(split.main, *target, {}, kMaxCandidateCodeSize);
    for (Prepack& p : split.packs) packs.push_back({p.param, lower(p.func, *target, {}, kMaxCandidateCodeSize)});
  } catch (...) {
    return failure(ErrorKind::kLowering);
  }
  proto::BuildReply reply;
  try {
    to_proto(build_artifact(lowered, packs, *target), reply.mutable_artifact());
  } catch (...) {
    return failure(ErrorKind::kCompile);
  }
  for (const ArgSpec& s : arg_specs(func_)) to_proto(s, reply.add_args());
  return reply;
}

}  // namespace kiln::rpc
