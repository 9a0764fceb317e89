// The farm's requests that carry a peer's data (rpc/proto/farm.proto): a
// Submit's job spec from `kiln job submit`, a Register from a runner. The
// first byte picks the message, the rest is its bytes; each goes through
// the checks the daemon makes before it touches its database
// (farm/requests.h); no daemon is started.
#include <google/protobuf/stubs/logging.h>

#include "farm/requests.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  // Invalid UTF-8 in a string field is a parse failure that protobuf also
  // logs: quiet, so that the log does not slow the run down.
  [[maybe_unused]] static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  if (size == 0) return 0;
  const int n = static_cast<int>(size - 1);
  fuzz::user_errors_are_fine([&] {
    if (data[0] % 2 == 0) {
      rpc::proto::SubmitRequest req;
      if (req.ParseFromArray(data + 1, n)) farm::read_submission(req).to_json();
    } else {
      rpc::proto::RegisterRequest req;
      if (req.ParseFromArray(data + 1, n)) farm::read_registration(req);
    }
  });
  return 0;
}
