#include "rpc/runner_client.h"

#include <grpcpp/grpcpp.h>

#include "core/error.h"
#include "rpc/convert.h"
#include "rpc/proto/runner.grpc.pb.h"
#include "rpc/runner/stream.h"

namespace kiln::rpc {
namespace {

class RemoteRunner final : public Runner {
 public:
  RemoteRunner(const std::string& address, const std::string& token, const std::string& tls_ca)
      : address_(address), token_(token), stub_(make_runner_stub(address, tls_ca)) {}

  DeviceInfo info() override { return runner_info(*stub_, address_, token_); }

  std::vector<MeasureResult> measure(const MeasureBatch& batch, const ResultCallback& on_result) override {
    std::vector<MeasureResult> results(batch.candidates.size());
    std::vector<size_t> all(batch.candidates.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    size_t received = 0;
    grpc::Status s = measure_stream(*stub_, token_, batch, all, [&](size_t i, MeasureResult r) {
      results[i] = std::move(r);
      ++received;
      if (on_result) on_result(results[i]);
    });
    if (!s.ok()) KILN_USER_ERROR() << describe_failure(address_, s);
    if (received != all.size())
      KILN_USER_ERROR() << "runner at " << address_ << " answered " << received << " of " << all.size()
                        << " candidates";
    return results;
  }

  std::string address() const override { return address_; }

 private:
  std::string address_, token_;
  std::unique_ptr<proto::Runner::Stub> stub_;
};

}  // namespace

std::unique_ptr<Runner> connect_remote_runner(const std::string& address, const std::string& token,
                                              const std::string& tls_ca) {
  return std::make_unique<RemoteRunner>(address, token, tls_ca);
}

std::unique_ptr<Runner> connect_runner(const std::string& address, const std::string& token,
                                       const std::string& tls_ca) {
  if (address == "local") return std::make_unique<LocalRunner>();
  return connect_remote_runner(address, token, tls_ca);
}

}  // namespace kiln::rpc
