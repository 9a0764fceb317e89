// The loop every worker process runs, whichever requests it serves: it
// hands its supervisor the kernel's fatal signals untouched, says hello,
// then answers each request frame on `fd` with one reply frame until the
// parent closes the socket. `kiln worker` serves runs and builds with it
// (serve_worker.h); the run worker cross-built for another CPU
// (rpc/cross/) serves runs alone, linking no compiler.
#pragma once

#include <functional>
#include <string>

#include "rpc/proto/worker.pb.h"

namespace kiln::rpc {

// The reply frame for one request; throws kiln::Error for a request the
// worker does not serve.
using FrameHandler = std::function<std::string(const proto::WorkerRequest&)>;

// Returns the process's exit status.
int serve_frames(const std::string& role, int fd, const FrameHandler& handle);

}  // namespace kiln::rpc
