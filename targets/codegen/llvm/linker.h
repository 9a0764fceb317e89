// Turning an object file into a shared library with the system compiler
// driver. Run as a child process (posix_spawn, no shell), so no path or
// name is ever interpreted by a shell.
#pragma once

#include <string>
#include <vector>

namespace kiln::llvm_backend {

// Links the objects into the shared library `out_path` with
// `cc -shared ... -lm -Wl,-z,defs`: every symbol must resolve from libc,
// libm or the compiler's runtime library, which is what lets any process
// load the result. Throws kiln::Error with the linker's output on failure.
void link_shared_library(const std::vector<std::string>& object_paths, const std::string& out_path);

}  // namespace kiln::llvm_backend
