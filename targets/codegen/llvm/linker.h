// Turning an object file into a shared library with the system compiler
// driver. Run as a child process (posix_spawn, no shell), so no path or
// name is ever interpreted by a shell.
#pragma once

#include <string>
#include <vector>

namespace kiln::llvm_backend {

// The program that links shared libraries for `triple`: "cc" for this
// process's own, "aarch64-linux-gnu-gcc" (Debian's cross toolchain) for
// 64-bit Arm Linux, "wasm-ld-19" (Debian's lld-19) for WebAssembly. Throws
// kiln::Error for a triple kiln cannot link for here.
std::string linker_for(const std::string& triple);

// Links the objects for `triple` into the shared library `out_path` with
// `<linker_for(triple)> -shared ... -lm -Wl,-z,defs`: every symbol must
// resolve from libc, libm or the compiler's runtime library, which is what
// lets any process of that CPU load the result. For WebAssembly, a module:
// `wasm-ld --no-entry --export-dynamic --allow-undefined`, every kernel,
// its signature string and kiln_runtime_api exported (wasm_runtime.h),
// what is undefined (libm, memcpy, the host's allocator) imported from
// "env", and a stack of 8 MiB. Throws kiln::Error with the linker's output
// on failure.
// `wasm_threads`: a WebAssembly module for several threads, its memory
// shared and imported (every thread's instance takes the same one), its
// table and stack pointer exported (each thread sets its own stack).
void link_shared_library(const std::vector<std::string>& object_paths, const std::string& out_path,
                         const std::string& triple, bool wasm_threads = false);

}  // namespace kiln::llvm_backend
