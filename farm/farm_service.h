// The Farm gRPC service a kilnd serves (rpc/proto/farm.proto): the runner
// registry and the job queue behind tokens. Its handlers share one
// connection per table, one call at a time; a followed log polls the queue.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "farm/job_queue.h"
#include "farm/runner_registry.h"
#include "farm/tokens.h"
#include "rpc/proto/farm.grpc.pb.h"

namespace kiln::farm {

constexpr uint32_t kFarmProtocolVersion = 1;

struct FarmServiceOptions {
  std::string db_url;
  Tokens tokens;  // empty: everyone is "local", an admin (loopback only)
  double heartbeat_s = 2;
  double runner_timeout_s = 10;
  double follow_poll_s = 0.2;
};

class FarmService final : public rpc::proto::Farm::Service {
 public:
  explicit FarmService(FarmServiceOptions o);
  // Ends every followed log stream (the daemon is stopping).
  void stop() { stopping_ = true; }

  grpc::Status Register(grpc::ServerContext*, const rpc::proto::RegisterRequest*, rpc::proto::RegisterReply*) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const rpc::proto::HeartbeatRequest*, rpc::proto::HeartbeatReply*) override;
  grpc::Status Leave(grpc::ServerContext*, const rpc::proto::HeartbeatRequest*, rpc::proto::HeartbeatReply*) override;
  grpc::Status Submit(grpc::ServerContext*, const rpc::proto::SubmitRequest*, rpc::proto::JobReply*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const rpc::proto::ListJobsRequest*, rpc::proto::ListJobsReply*) override;
  grpc::Status GetJob(grpc::ServerContext*, const rpc::proto::JobRequest*, rpc::proto::JobReply*) override;
  grpc::Status Cancel(grpc::ServerContext*, const rpc::proto::JobRequest*, rpc::proto::JobReply*) override;
  grpc::Status Logs(grpc::ServerContext*, const rpc::proto::LogsRequest*, grpc::ServerWriter<rpc::proto::LogLine>*) override;
  grpc::Status Status(grpc::ServerContext*, const rpc::proto::StatusRequest*, rpc::proto::StatusReply*) override;

 private:
  // The caller, when the token allows `roles` (comma-separated); else the
  // status to answer with.
  grpc::Status authenticate(const grpc::ServerContext& ctx, uint32_t version, const std::string& roles, Caller& who) const;
  std::string job_json(const Job& j);

  FarmServiceOptions o_;
  std::mutex mu_;  // guards the connections
  JobQueue queue_;
  RunnerRegistry registry_;
  std::atomic<bool> stopping_{false};
};

}  // namespace kiln::farm
