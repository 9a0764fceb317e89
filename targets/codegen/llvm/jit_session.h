// In-process compilation with ORC's LLJIT.
//
// Building a JIT costs more than compiling a small kernel, and the tuner
// compiles thousands, so there is one LLJIT per distinct (triple, CPU,
// features), shared by every kernel and every thread, created on first use
// and kept for the life of the process. Each kernel's code sits in its own
// ResourceTracker, removed when the CompiledKernel dies; kernels get unique
// symbols (name.k<N>), so many candidates of one PrimFunc can coexist.
// libc/libm symbols (expf, memset, ...) resolve from the process.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "targets/runtime/compiled_kernel.h"
#include "targets/target.h"

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}
}  // namespace llvm

namespace kiln::llvm_backend {

class JitSession : public std::enable_shared_from_this<JitSession> {
 public:
  // The session for t; throws kiln::Error when t's triple is not this process's.
  static std::shared_ptr<JitSession> for_target(const Target& t);
  ~JitSession();

  // A symbol no other kernel of this session has: "name.k<N>".
  std::string unique_symbol(const std::string& name);
  // Compiles `module` (already optimised) and returns its kernel `symbol`,
  // presented under `name`. Throws kiln::InternalError when LLVM fails.
  std::unique_ptr<CompiledKernel> add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> ctx,
                                      const std::string& symbol, const std::string& name,
                                      std::vector<KernelParam> params);

 private:
  explicit JitSession(std::unique_ptr<llvm::orc::LLJIT> jit);
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::atomic<uint64_t> next_id_{0};
};

}  // namespace kiln::llvm_backend
