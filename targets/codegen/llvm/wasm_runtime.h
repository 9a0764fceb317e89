// What a WebAssembly module of kernels carries besides them: kiln's kernel
// ABI wants a KilnRuntimeApi of function pointers (runtime/kernel_abi.h),
// and in WebAssembly a function pointer is an index into the module's own
// table, which only the module's functions fill. So every module links this
// small object (LLVM IR compiled for the target):
//
//   kiln_runtime_api      the struct, exported: its address is what the
//                         host passes as the kernel's `rt`
//   parallel_launch       runs the one task of a launch (n = 1, which the
//                         ABI allows): modules are single-threaded
//   alloc/free_scratch    call the host's kiln_host_alloc / kiln_host_free,
//                         imported from "env" (the JavaScript loader,
//                         targets/wasm/kiln_wasm.js, owns the heap)
#pragma once

#include <memory>

#include "targets/target.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::llvm_backend {

// The support module for a wasm32 target, with tm's triple and data layout,
// compiled and linked beside the kernels as they are (build_llvm.cpp).
std::unique_ptr<llvm::Module> wasm_runtime_module(const Target& target, llvm::TargetMachine& tm,
                                                  llvm::LLVMContext& ctx);

}  // namespace kiln::llvm_backend
