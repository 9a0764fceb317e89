// The main loop of a worker process (`kiln worker --role=run|build`, which
// only runners and the builder start): says hello, then answers each request
// frame on `fd` with one reply frame until the parent closes the socket.
#pragma once

#include <string>

namespace kiln::rpc {

// Returns the process's exit status. Throws kiln::Error for an unknown role.
int serve_worker(const std::string& role, int fd);

}  // namespace kiln::rpc
