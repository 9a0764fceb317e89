// kiln worker --role=run|build: a process a runner or the builder starts
// for itself (rpc/worker/serve_worker.h); not for people, so it is hidden
// from --help. It serves frames on fd 3 and exits with its parent.
#include <cstdlib>

#include "rpc/process/child_process.h"
#include "rpc/worker/serve_worker.h"
#include "tools/commands.h"

namespace kiln::cli {

void add_worker(CLI::App& app) {
  struct Args {
    std::string role;
    int lifeline_fd = -1;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("worker", "");
  cmd->group("");
  cmd->add_option("--role", a->role)->required();
  cmd->add_option("--lifeline-fd", a->lifeline_fd);
  cmd->callback([a] {
    if (a->lifeline_fd >= 0) rpc::watch_lifeline(a->lifeline_fd);
    std::exit(rpc::serve_worker(a->role, 3));
  });
}

}  // namespace kiln::cli
