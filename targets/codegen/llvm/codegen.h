// PrimFunc -> llvm::Module, private to the LLVM back end. build_llvm.h is
// the public face; this is the step it shares between the JIT, object files
// and the IR/assembly dumps.
#pragma once

#include <memory>
#include <string>

#include "targets/target.h"
#include "tir/stmt.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::llvm_backend {

// An unoptimised module holding the exported kernel `symbol` (the kernel ABI
// of targets/runtime/kernel_abi.h) and the constant `symbol`__kiln_signature
// describing its parameters. The module gets tm's triple and data layout.
std::unique_ptr<llvm::Module> generate_module(const PrimFunc& f, const Target& target, llvm::TargetMachine& tm,
                                              llvm::LLVMContext& ctx, const std::string& symbol);

// "A:float32:1024;B:int8:16": name, element type and element count (-1 when
// not constant) of each parameter, in calling order.
std::string kernel_signature(const PrimFunc& f);

}  // namespace kiln::llvm_backend
