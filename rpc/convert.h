// Between the plain C++ types of rpc/measure.h and their wire forms.
#pragma once

#include "rpc/measure.h"
#include "rpc/proto/runner.pb.h"

namespace kiln::rpc {

// Every message carries it; a runner refuses requests of another version.
constexpr uint32_t kProtocolVersion = 1;

proto::ErrorKind to_proto(ErrorKind k);
ErrorKind from_proto(proto::ErrorKind k);

void to_proto(const ArgSpec& s, proto::TensorSpec* out);
// Throws kiln::Error for an unknown dtype or a negative extent.
ArgSpec from_proto(const proto::TensorSpec& s);

void to_proto(const ArtifactPrepack& p, proto::Prepack* out);
ArtifactPrepack from_proto(const proto::Prepack& p);
void to_proto(const Artifact& a, proto::Artifact* out);
Artifact from_proto(const proto::Artifact& a);

void to_proto(const TimingConfig& t, proto::TimingConfig* out);
TimingConfig from_proto(const proto::TimingConfig& t);

proto::MeasureRequest to_proto(const MeasureBatch& b);
MeasureResult from_proto(const proto::MeasureResult& r);
void to_proto(const DeviceInfo& d, proto::InfoReply* out);  // all but protocol_version
DeviceInfo from_proto(const proto::InfoReply& r);

}  // namespace kiln::rpc
