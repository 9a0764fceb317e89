// The Runner service (rpc/proto/runner.proto) behind `kiln runner`.
//
// Measures one candidate at a time for the whole device, whichever client
// sent it (two clients' batches interleave, they never overlap), each in the
// supervised worker process (rpc/worker/run_worker.h):
//
//   refuse a target the device cannot run   -> unsupported_target
//   compute the reference output if needed  (the workload's default
//                                           program, once per workload)
//   worker: load, checked run, time         -> times | wrong_answer |
//                                              runtime_error
//     (screening: a first warm run slower than the cutoff is the only one)
//   worker crashed                          -> runtime_error, the signal named
//   worker over the time limit, killed      -> timeout, the limit named
//
// Authentication: with a token, every call must carry the metadata
// "authorization: Bearer TOKEN"; anything else is UNAUTHENTICATED before a
// byte of the request is looked at.
#pragma once

#include <grpcpp/grpcpp.h>

#include <map>
#include <mutex>
#include <string>

#include "rpc/grpc_util.h"
#include "rpc/measure.h"
#include "rpc/process/worker_process.h"
#include "rpc/proto/runner.grpc.pb.h"
#include "rpc/runner/device.h"
#include "targets/target.h"

namespace kiln::rpc {

struct RunnerOptions {
  std::string device_key = "local";
  std::string token;  // empty: no authentication
  TlsFiles tls;       // empty: a plain connection (loopback and unix sockets only)
  Target device = Target::host();
  // GPU artifacts run on these (rpc/runner/device.h's detect_gpus).
  std::vector<GpuDevice> gpus;
  // Where artifacts and reference outputs are written; created if missing.
  std::string workdir;
  std::string kiln = kiln_binary();  // the run worker: run_worker_argv(device, kiln)
};

class RunnerService final : public proto::Runner::Service {
 public:
  explicit RunnerService(RunnerOptions options);
  ~RunnerService() override;

  grpc::Status Info(grpc::ServerContext* ctx, const proto::InfoRequest* req, proto::InfoReply* reply) override;
  grpc::Status Measure(grpc::ServerContext* ctx, const proto::MeasureRequest* req,
                       grpc::ServerWriter<proto::MeasureResult>* writer) override;

  const DeviceInfo& device_info() const { return info_; }

 private:
  grpc::Status authenticate(const grpc::ServerContext& ctx) const;
  // screen_above_s: seconds per run above which the candidate is timed
  // once (0: never).
  proto::MeasureResult measure_one(const proto::Candidate& c, const proto::MeasureRequest& req,
                                   double screen_above_s);
  // The reference output's path, computed if needed; an error message when
  // the reference program fails.
  std::string reference_path(const proto::Reference& ref, const proto::Candidate& c,
                             const proto::MeasureRequest& req, std::string* error);
  std::string write_artifact(const proto::Artifact& a);
  // Why this device must not load the artifact; empty when it may.
  std::string refusal(const proto::Artifact& a) const;

  RunnerOptions options_;
  DeviceInfo info_;
  std::mutex device_mu_;  // one measurement at a time on this device
  WorkerProcess worker_;
  uint64_t next_file_ = 0;
};

}  // namespace kiln::rpc
