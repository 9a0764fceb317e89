// What the runner checks of a Measure request before it writes or runs
// anything (rpc/runner/runner_service.h): the protocol version, timing
// settings a measurement can follow, references that exist, and whether
// this device may load an artifact. Apart from the service so that the
// checks a peer's bytes meet can be exercised without a server
// (fuzz/runner_request.cpp).
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "rpc/proto/runner.pb.h"
#include "rpc/runner/device.h"
#include "targets/target.h"

namespace kiln::rpc {

grpc::Status check_protocol_version(uint32_t v);

// The version, the timing and every candidate's reference; the status a
// Measure call answers with when one is wrong.
grpc::Status check_measure_request(const proto::MeasureRequest& req);

// Why a runner on `device` with `gpus` must not load the artifact (its
// target unreadable, another kind or triple, missing CPU features, no such
// GPU); empty when it may.
std::string artifact_refusal(const proto::Artifact& a, const Target& device, const std::vector<GpuDevice>& gpus);

}  // namespace kiln::rpc
