#include "support/foreign_device.h"

#include <fstream>
#include <map>
#include <memory>

#include "core/error.h"
#include "rpc/convert.h"
#include "rpc/process/child_process.h"
#include "rpc/runner/device.h"
#include "support/scratch.h"
#include "targets/build.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"

namespace kiln::testing {
namespace {

constexpr uint64_t kSeed = 3;

}  // namespace

ForeignDevice::ForeignDevice(Target target)
    : target_(std::move(target)), worker_(rpc::run_worker_argv(target_, rpc::kiln_binary())) {}

rpc::proto::RunReply ForeignDevice::run(const OpProgram& p, int threads) {
  const std::string base = scratch_path("foreign" + std::to_string(next_++));
  const std::string artifact = base + ".artifact", reference = base + ".ref";
  const Artifact a = build_artifact(p.lowered, p.target);
  std::ofstream(artifact, std::ios::binary).write(a.data.data(), static_cast<std::streamsize>(a.data.size()));

  std::vector<NDArray> want = reference_outputs(p.func, make_arguments(p.func, kSeed));
  std::ofstream(reference, std::ios::binary)
      .write(static_cast<const char*>(want.back().data()), static_cast<std::streamsize>(want.back().nbytes()));

  rpc::proto::WorkerRequest req;
  rpc::proto::RunRequest* run = req.mutable_run();
  run->set_artifact_path(artifact);
  run->set_artifact_format(a.format);
  run->set_kernel_name(p.lowered->name);
  for (const ArgSpec& s : arg_specs(p.func)) rpc::to_proto(s, run->add_args());
  rpc::TimingConfig timing;
  timing.warmup = 0;
  timing.repeat = 1;
  timing.threads = threads;
  timing.seed = kSeed;
  rpc::to_proto(timing, run->mutable_timing());
  run->set_reference_path(reference);
  run->set_tolerance(check_tolerance(p.func));

  rpc::WorkerCall call = worker_.call(req.SerializeAsString(), 120000);
  rpc::proto::RunReply reply;
  if (call.status == rpc::WorkerCall::kTimeout) {
    reply.set_error_kind(rpc::proto::TIMEOUT);
    reply.set_error_message("no reply in 120 s");
  } else if (call.status == rpc::WorkerCall::kDied) {
    reply.set_error_kind(rpc::proto::RUNTIME_ERROR);
    reply.set_error_message("the worker died: " + call.death);
  } else if (!reply.ParseFromString(call.reply)) {
    reply.set_error_kind(rpc::proto::RUNTIME_ERROR);
    reply.set_error_message("a malformed reply");
  }
  return reply;
}

ForeignDevice& foreign_device(const std::string& target) {
  static std::map<std::string, std::unique_ptr<ForeignDevice>> devices;
  std::unique_ptr<ForeignDevice>& d = devices[target];
  if (!d) d = std::make_unique<ForeignDevice>(Target::parse(target));
  return *d;
}

std::string ForeignDevice::check(const OpProgram& p, int threads) {
  rpc::proto::RunReply r = run(p, threads);
  if (r.error_kind() == rpc::proto::NONE) return "";
  return rpc::proto::ErrorKind_Name(r.error_kind()) + ": " + r.error_message();
}

}  // namespace kiln::testing
