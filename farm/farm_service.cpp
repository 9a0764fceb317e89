#include "farm/farm_service.h"

#include <chrono>
#include <thread>

#include "core/error.h"
#include "farm/requests.h"
#include "rpc/grpc_util.h"

namespace kiln::farm {
namespace {

using grpc::StatusCode;
namespace pb = rpc::proto;

// Runs a handler's body: kiln::Error becomes `code` with its message.
template <typename F>
grpc::Status guarded(F&& body, StatusCode code = StatusCode::INVALID_ARGUMENT) {
  try {
    body();
    return grpc::Status::OK;
  } catch (const Error& e) {
    return {code, e.what()};
  } catch (const std::exception& e) {
    return {StatusCode::INTERNAL, e.what()};
  }
}

nlohmann::json runner_json(const RegisteredRunner& r) {
  return {{"address", r.address},       {"device_key", r.device_key}, {"state", r.state},
          {"cpu_model", r.info.cpu_model}, {"cpu_name", r.info.cpu_name}, {"num_cores", r.info.num_cores},
          {"kiln_version", r.info.kiln_version}, {"last_heartbeat", r.last_heartbeat},
          {"heartbeat_age_s", r.heartbeat_age_s}, {"busy_job", r.busy_job}, {"measured", r.measured},
          {"errors", r.errors}};
}

}  // namespace

FarmService::FarmService(FarmServiceOptions o) : o_(std::move(o)), queue_(o_.db_url), registry_(o_.db_url) {}

grpc::Status FarmService::authenticate(const grpc::ServerContext& ctx, uint32_t version, const std::string& roles,
                                 Caller& who) const {
  if (version != kFarmProtocolVersion)
    return {StatusCode::FAILED_PRECONDITION, "protocol version " + std::to_string(version) +
                                                 " is not this daemon's version " + std::to_string(kFarmProtocolVersion)};
  if (o_.tokens.empty()) {
    who = {"local", "admin"};
    return grpc::Status::OK;
  }
  std::optional<Caller> c = o_.tokens.find(rpc::presented_token(ctx));
  if (!c) return {StatusCode::UNAUTHENTICATED, "this daemon needs a token: the request carried none or a wrong one"};
  if (!c->admin() && ("," + roles + ",").find("," + c->role + ",") == std::string::npos)
    return {StatusCode::PERMISSION_DENIED, "a " + c->role + " token (" + c->name + ") may not do this"};
  who = *c;
  return grpc::Status::OK;
}

std::string FarmService::job_json(const Job& j) {
  nlohmann::json out = j.to_json();
  const std::string waiting = queue_.waiting_reason(j, o_.runner_timeout_s);
  if (!waiting.empty()) out["waiting"] = waiting;
  return out.dump();
}

grpc::Status FarmService::Register(grpc::ServerContext* ctx, const pb::RegisterRequest* req, pb::RegisterReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "runner", who); !s.ok()) return s;
  return guarded([&] {
    rpc::DeviceInfo d = read_registration(*req);
    std::lock_guard<std::mutex> lock(mu_);
    registry_.announce(req->address(), d);
    reply->set_protocol_version(kFarmProtocolVersion);
    reply->set_heartbeat_s(o_.heartbeat_s);
    reply->set_timeout_s(o_.runner_timeout_s);
  });
}

grpc::Status FarmService::Heartbeat(grpc::ServerContext* ctx, const pb::HeartbeatRequest* req, pb::HeartbeatReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "runner", who); !s.ok()) return s;
  return guarded([&] {
    std::lock_guard<std::mutex> lock(mu_);
    reply->set_protocol_version(kFarmProtocolVersion);
    reply->set_known(registry_.heartbeat(req->address()));
  }, StatusCode::UNAVAILABLE);
}

grpc::Status FarmService::Leave(grpc::ServerContext* ctx, const pb::HeartbeatRequest* req, pb::HeartbeatReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "runner", who); !s.ok()) return s;
  return guarded([&] {
    std::lock_guard<std::mutex> lock(mu_);
    registry_.leave(req->address());
    reply->set_protocol_version(kFarmProtocolVersion);
    reply->set_known(true);
  }, StatusCode::UNAVAILABLE);
}

grpc::Status FarmService::Submit(grpc::ServerContext* ctx, const pb::SubmitRequest* req, pb::JobReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "user", who); !s.ok()) return s;
  return guarded([&] {
    JobSpec spec = read_submission(*req);
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t id = queue_.submit(spec, who.name);
    reply->set_protocol_version(kFarmProtocolVersion);
    reply->set_job_json(job_json(*queue_.get(id)));
  });
}

grpc::Status FarmService::ListJobs(grpc::ServerContext* ctx, const pb::ListJobsRequest* req, pb::ListJobsReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "user", who); !s.ok()) return s;
  return guarded([&] {
    std::lock_guard<std::mutex> lock(mu_);
    reply->set_protocol_version(kFarmProtocolVersion);
    for (const Job& j : queue_.list(req->limit() > 0 ? req->limit() : 100)) reply->add_job_json(job_json(j));
  }, StatusCode::UNAVAILABLE);
}

grpc::Status FarmService::GetJob(grpc::ServerContext* ctx, const pb::JobRequest* req, pb::JobReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "user", who); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<Job> j;
  if (grpc::Status s = guarded([&] { j = queue_.get(req->id()); }, StatusCode::UNAVAILABLE); !s.ok()) return s;
  if (!j) return {StatusCode::NOT_FOUND, "no job " + std::to_string(req->id())};
  reply->set_protocol_version(kFarmProtocolVersion);
  return guarded([&] { reply->set_job_json(job_json(*j)); }, StatusCode::UNAVAILABLE);
}

grpc::Status FarmService::Cancel(grpc::ServerContext* ctx, const pb::JobRequest* req, pb::JobReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "user", who); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  return guarded([&] {
    queue_.cancel(req->id(), who.name, who.admin());
    reply->set_protocol_version(kFarmProtocolVersion);
    reply->set_job_json(job_json(*queue_.get(req->id())));
  }, StatusCode::PERMISSION_DENIED);
}

grpc::Status FarmService::Logs(grpc::ServerContext* ctx, const pb::LogsRequest* req, grpc::ServerWriter<pb::LogLine>* out) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "user", who); !s.ok()) return s;
  int64_t after = req->after();
  for (;;) {
    std::vector<LogLine> lines;
    std::optional<Job> job;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (grpc::Status s = guarded([&] {
            job = queue_.get(req->id());
            lines = queue_.logs(req->id(), after);
          }, StatusCode::UNAVAILABLE);
          !s.ok())
        return s;
    }
    if (!job) return {StatusCode::NOT_FOUND, "no job " + std::to_string(req->id())};
    for (const LogLine& l : lines) {
      pb::LogLine m;
      m.set_id(l.id);
      m.set_at(l.at);
      m.set_line(l.line);
      if (!out->Write(m)) return grpc::Status::OK;  // the client went away
      after = l.id;
    }
    // The job read before its lines: when it had ended, every line is sent.
    if (!req->follow() || job->finished()) {
      if (req->follow()) {
        pb::LogLine last;
        std::lock_guard<std::mutex> lock(mu_);
        last.set_final_job_json(job_json(*job));
        out->Write(last);
      }
      return grpc::Status::OK;
    }
    if (ctx->IsCancelled() || stopping_) return {StatusCode::UNAVAILABLE, "the daemon is stopping"};
    std::this_thread::sleep_for(std::chrono::duration<double>(o_.follow_poll_s));
  }
}

grpc::Status FarmService::Status(grpc::ServerContext* ctx, const pb::StatusRequest* req, pb::StatusReply* reply) {
  Caller who;
  if (grpc::Status s = authenticate(*ctx, req->protocol_version(), "user", who); !s.ok()) return s;
  return guarded([&] {
    std::lock_guard<std::mutex> lock(mu_);
    nlohmann::json runners = nlohmann::json::array();
    for (const RegisteredRunner& r : registry_.all(o_.runner_timeout_s)) runners.push_back(runner_json(r));
    nlohmann::json jobs = {{"queued", 0}, {"running", 0}, {"done", 0}, {"failed", 0}, {"cancelled", 0}};
    for (const auto& [state, n] : queue_.counts_by_state()) jobs[state] = n;
    reply->set_protocol_version(kFarmProtocolVersion);
    reply->set_runners_json(runners.dump());
    reply->set_jobs_json(jobs.dump());
  }, StatusCode::UNAVAILABLE);
}

}  // namespace kiln::farm
