// Loading kernels from shared libraries that kiln exported
// (export_shared_library in targets/codegen/llvm/build_llvm.h). Needs no
// LLVM: a process that only runs kernels links just the runtime.
#pragma once

#include <memory>
#include <string>

#include "targets/runtime/compiled_kernel.h"

namespace kiln {

// Opens the library at `path` and finds kernel `name` and its signature.
// Throws kiln::Error naming the path when it cannot be loaded or is not a
// kiln kernel library holding `name`.
std::unique_ptr<CompiledKernel> load_shared_library(const std::string& path, const std::string& name);

}  // namespace kiln
