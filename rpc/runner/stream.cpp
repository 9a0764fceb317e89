#include "rpc/runner/stream.h"

#include <chrono>

#include "rpc/convert.h"
#include "rpc/grpc_util.h"
#include "core/error.h"

namespace kiln::rpc {
namespace {

constexpr int kMaxMessageBytes = 512 << 20;

}  // namespace

std::unique_ptr<proto::Runner::Stub> make_runner_stub(const std::string& address, const std::string& tls_ca) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  return proto::Runner::NewStub(grpc::CreateCustomChannel(address, channel_credentials(tls_ca), args));
}

std::string describe_failure(const std::string& address, const grpc::Status& s) {
  std::string what = s.error_code() == grpc::StatusCode::UNAVAILABLE ? "cannot reach runner at " : "runner at ";
  if (s.error_code() != grpc::StatusCode::UNAVAILABLE) return what + address + " refused the request: " + status_code_name(s.error_code()) + ": " + s.error_message();
  return what + address + ": " + s.error_message();
}

DeviceInfo runner_info(proto::Runner::Stub& stub, const std::string& address, const std::string& token) {
  grpc::ClientContext ctx;
  authorize(ctx, token);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  ctx.set_wait_for_ready(false);
  proto::InfoRequest req;
  req.set_protocol_version(kProtocolVersion);
  proto::InfoReply reply;
  grpc::Status s = stub.Info(&ctx, req, &reply);
  if (!s.ok()) KILN_USER_ERROR() << describe_failure(address, s);
  return from_proto(reply);
}

grpc::Status measure_stream(proto::Runner::Stub& stub, const std::string& token, const MeasureBatch& batch,
                            const std::vector<size_t>& which, const std::function<void(size_t, MeasureResult)>& got,
                            const std::function<void(grpc::ClientContext&)>& started) {
  MeasureBatch subset;
  subset.timing = batch.timing;
  subset.references = batch.references;
  for (size_t i : which) {
    subset.candidates.push_back(batch.candidates[i]);
    subset.candidates.back().id = i;
  }
  proto::MeasureRequest req = to_proto(subset);
  grpc::ClientContext ctx;
  authorize(ctx, token);
  std::unique_ptr<grpc::ClientReader<proto::MeasureResult>> reader = stub.Measure(&ctx, req);
  if (started) started(ctx);
  proto::MeasureResult r;
  while (reader->Read(&r)) {
    MeasureResult m = from_proto(r);
    if (m.id >= batch.candidates.size()) continue;  // not ours: ignore rather than misfile
    size_t i = m.id;
    m.id = batch.candidates[i].id;
    got(i, std::move(m));
  }
  return reader->Finish();
}

}  // namespace kiln::rpc
