// The runner's Measure requests (rpc/proto/runner.proto): bytes a peer
// sends `kiln runner`. They go through the checks the server makes before
// it writes or runs anything (rpc/runner/request_check.h) and the reading
// of arguments and timing its worker does; no server is started.
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "fuzz/fuzz_util.h"
#include "rpc/convert.h"
#include "rpc/proto/runner.pb.h"
#include "rpc/runner/request_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  // A CPU runner with a CUDA and an OpenCL device, so every refusal is reached.
  static const Target device = Target::host();
  static const std::vector<rpc::GpuDevice> gpus = {{"fuzz cuda", Target::parse("cuda -arch=sm_80")},
                                                   {"fuzz opencl", Target::parse("opencl")}};
  // Invalid UTF-8 in a string field is a parse failure that protobuf also
  // logs: quiet, so that the log does not slow the run down.
  [[maybe_unused]] static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  rpc::proto::MeasureRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return 0;  // gRPC refuses it
  if (!rpc::check_measure_request(req).ok()) return 0;
  for (const rpc::proto::Reference& r : req.references()) rpc::artifact_refusal(r.artifact(), device, gpus);
  for (const rpc::proto::Candidate& c : req.candidates()) {
    if (!rpc::artifact_refusal(c.artifact(), device, gpus).empty()) continue;
    fuzz::user_errors_are_fine([&] {
      for (const rpc::proto::TensorSpec& s : c.args()) rpc::from_proto(s);
      rpc::from_proto(req.timing());
    });
  }
  return 0;
}
