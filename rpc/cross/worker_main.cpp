// kiln-worker-<triple>: the runner's run worker (rpc/worker/run_worker.h)
// built for another CPU, so a runner on this machine loads, checks and times
// that CPU's kernels in a process of that CPU: under qemu-user here, natively
// on the device itself. It takes what `kiln worker --role=run` takes and
// serves frames on fd 3 until its parent goes.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "rpc/process/child_process.h"
#include "rpc/worker/run_worker.h"

int main(int argc, char** argv) {
  int lifeline_fd = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--role=run") continue;
    if (a.rfind("--lifeline-fd=", 0) == 0) {
      lifeline_fd = std::atoi(a.c_str() + 14);
      continue;
    }
    std::fprintf(stderr, "%s: unknown argument '%s' (this worker serves --role=run only)\n", argv[0], a.c_str());
    return 2;
  }
  try {
    if (lifeline_fd >= 0) kiln::rpc::watch_lifeline(lifeline_fd);
    return kiln::rpc::serve_runs(3);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}
