#include "farm/farm_client.h"

#include <chrono>

#include "core/error.h"
#include "farm/farm_service.h"
#include "rpc/convert.h"
#include "rpc/grpc_util.h"

namespace kiln::farm {
namespace {
namespace pb = rpc::proto;

// A daemon's reply read as JSON: a malformed one (another version, a proxy
// in the way) is a user error naming the call, never an escaped exception.
nlohmann::json parse_reply(const std::string& text, const char* call) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    KILN_USER_ERROR() << "the farm's reply to " << call << " is not valid JSON: " << e.what();
  }
}
}  // namespace

FarmClient::FarmClient(const std::string& address, FarmClientOptions o) : address_(address), o_(std::move(o)) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(64 << 20);
  stub_ = pb::Farm::NewStub(grpc::CreateCustomChannel(address, rpc::channel_credentials(o_.tls_ca), args));
}

void FarmClient::fail(const grpc::Status& s) const {
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE)
    KILN_USER_ERROR() << "cannot reach the daemon at " << address_ << ": " << s.error_message();
  KILN_USER_ERROR() << "daemon at " << address_ << " refused the request: " << rpc::status_code_name(s.error_code())
                    << ": " << s.error_message();
}

void FarmClient::prepare(grpc::ClientContext& ctx) const {
  rpc::authorize(ctx, o_.token);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
}

template <typename Request, typename Reply>
Reply FarmClient::call(grpc::Status (pb::Farm::Stub::*method)(grpc::ClientContext*, const Request&, Reply*),
                       Request req) {
  req.set_protocol_version(kFarmProtocolVersion);
  Reply reply;
  grpc::ClientContext ctx;
  prepare(ctx);
  if (grpc::Status s = (stub_.get()->*method)(&ctx, req, &reply); !s.ok()) fail(s);
  return reply;
}

std::pair<double, double> FarmClient::register_runner(const std::string& runner_address, const rpc::DeviceInfo& device) {
  pb::RegisterRequest req;
  req.set_address(runner_address);
  rpc::to_proto(device, req.mutable_device());
  pb::RegisterReply reply = call(&pb::Farm::Stub::Register, req);
  return {reply.heartbeat_s(), reply.timeout_s()};
}

bool FarmClient::heartbeat(const std::string& runner_address) {
  pb::HeartbeatRequest req;
  req.set_address(runner_address);
  return call(&pb::Farm::Stub::Heartbeat, req).known();
}

void FarmClient::leave(const std::string& runner_address) {
  pb::HeartbeatRequest req;
  req.set_address(runner_address);
  call(&pb::Farm::Stub::Leave, req);
}

nlohmann::json FarmClient::submit(const JobSpec& spec) {
  pb::SubmitRequest req;
  req.set_spec_json(spec.to_json().dump());
  return parse_reply(call(&pb::Farm::Stub::Submit, req).job_json(), "Submit");
}

nlohmann::json FarmClient::job(int64_t id) {
  pb::JobRequest req;
  req.set_id(id);
  return parse_reply(call(&pb::Farm::Stub::GetJob, req).job_json(), "GetJob");
}

std::vector<nlohmann::json> FarmClient::jobs(int limit) {
  pb::ListJobsRequest req;
  req.set_limit(limit);
  const pb::ListJobsReply reply = call(&pb::Farm::Stub::ListJobs, req);
  std::vector<nlohmann::json> out;
  for (const std::string& j : reply.job_json()) out.push_back(parse_reply(j, "ListJobs"));
  return out;
}

nlohmann::json FarmClient::cancel(int64_t id) {
  pb::JobRequest req;
  req.set_id(id);
  return parse_reply(call(&pb::Farm::Stub::Cancel, req).job_json(), "Cancel");
}

nlohmann::json FarmClient::logs(int64_t id, int64_t after, bool follow,
                                const std::function<void(double, const std::string&)>& on_line) {
  pb::LogsRequest req;
  req.set_protocol_version(kFarmProtocolVersion);
  req.set_id(id);
  req.set_after(after);
  req.set_follow(follow);
  grpc::ClientContext ctx;
  rpc::authorize(ctx, o_.token);  // no deadline: a followed job may run for hours
  std::unique_ptr<grpc::ClientReader<pb::LogLine>> reader = stub_->Logs(&ctx, req);
  pb::LogLine line;
  nlohmann::json last;
  while (reader->Read(&line)) {
    if (!line.final_job_json().empty()) last = parse_reply(line.final_job_json(), "Logs");
    else if (on_line) on_line(line.at(), line.line());
  }
  if (grpc::Status s = reader->Finish(); !s.ok()) fail(s);
  return last;
}

nlohmann::json FarmClient::status() {
  pb::StatusReply reply = call(&pb::Farm::Stub::Status, pb::StatusRequest());
  return {{"runners", parse_reply(reply.runners_json(), "Status")}, {"jobs", parse_reply(reply.jobs_json(), "Status")}};
}

}  // namespace kiln::farm
