// The client half of the Runner protocol, shared by remote and local
// runners (rpc/runner_client.h): one Info call, one Measure stream.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "rpc/measure.h"
#include "rpc/proto/runner.grpc.pb.h"

namespace kiln::rpc {

// A stub for the runner at `address`: over TLS trusting the CA in
// `tls_ca` (PEM file) when one is given.
std::unique_ptr<proto::Runner::Stub> make_runner_stub(const std::string& address, const std::string& tls_ca = "");

// Throws kiln::Error naming the address when the call fails.
DeviceInfo runner_info(proto::Runner::Stub& stub, const std::string& address, const std::string& token);

// Sends batch.candidates[i] for each i in `which` (on the wire, candidate
// id i) and calls got(i, result) for each result as it arrives, the
// result's id restored to the caller's. Returns the stream's final status.
// `started`, when given, is called with the call's context once the call
// is made: another thread may TryCancel() it until measure_stream returns
// (a runner that stopped answering without failing, farm/farm_runner.h).
grpc::Status measure_stream(proto::Runner::Stub& stub, const std::string& token, const MeasureBatch& batch,
                            const std::vector<size_t>& which, const std::function<void(size_t, MeasureResult)>& got,
                            const std::function<void(grpc::ClientContext&)>& started = {});

// "runner at ADDR refused the request: UNAUTHENTICATED: ..."
std::string describe_failure(const std::string& address, const grpc::Status& s);

}  // namespace kiln::rpc
