#include "rpc/worker/serve_worker.h"

#include "core/error.h"
#include "rpc/worker/build_worker.h"
#include "rpc/worker/run_worker.h"
#include "rpc/worker/serve_frames.h"

namespace kiln::rpc {

int serve_worker(const std::string& role, int fd) {
  if (role == "run") return serve_runs(fd);
  if (role == "build") {
    BuildWorker builds;
    return serve_frames(role, fd, [&](const proto::WorkerRequest& req) {
      if (!req.has_build()) KILN_USER_ERROR() << "a build worker received another kind of request";
      return builds.handle(req.build()).SerializeAsString();
    });
  }
  KILN_USER_ERROR() << "unknown worker role '" << role << "' (run, build)";
}

}  // namespace kiln::rpc
