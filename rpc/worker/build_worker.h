// The builder's worker: applies a trace to a function, lowers it and
// compiles it into an artifact (BuildRequest in rpc/proto/worker.proto).
// Each step's failure has its own error kind: a trace that does not apply
// is `instantiation`, a program that does not lower is `lowering`, a code
// generator failure is `compile`. A candidate whose code would be larger
// than kMaxCandidateCodeSize IR nodes once unrolled is refused at lowering,
// before LLVM spends seconds on it (docs/measurement.md, "Build time"):
// the tuned kernels seen so far are under 25,000, a 140,000-node candidate
// builds in 2.5 s, and one that unswitching once blew up to 13.6 million
// took 13 s. It runs in its own process so that a
// compile that hangs can be killed (build_timeout) and one that crashes
// costs one candidate.
#pragma once

#include <string>

#include "rpc/proto/worker.pb.h"
#include "tir/stmt.h"

namespace kiln::rpc {

inline constexpr int64_t kMaxCandidateCodeSize = int64_t{1} << 18;

class BuildWorker {
 public:
  proto::BuildReply handle(const proto::BuildRequest& request);

 private:
  // The last function parsed: a batch of candidates shares one.
  std::string func_json_;
  PrimFunc func_;
};

}  // namespace kiln::rpc
