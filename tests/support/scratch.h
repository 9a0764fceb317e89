// Where tests put their files: one directory per test process under the
// system's temporary directory, removed with everything in it when the
// process exits, so that a run of the suite leaves nothing behind (a
// thousand databases and logs in /tmp after a few runs, before).
#pragma once

#include <string>

namespace kiln::testing {

// A path named `name` in this process's scratch directory, with nothing
// there yet (a file of that name, and SQLite's -wal and -shm beside it,
// removed). The directory is made on first use.
std::string scratch_path(const std::string& name);

}  // namespace kiln::testing
