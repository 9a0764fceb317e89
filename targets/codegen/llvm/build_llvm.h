// Compiling lowered PrimFuncs (docs/lowered_ir.md) for CPUs with LLVM.
//
//   Target t = Target::parse("llvm -num-cores=2");
//   auto k = build_llvm(lower(f), t);          // JIT, in this process
//   ThreadPool pool(t.num_cores());
//   k->call_arrays({&a, &b, &c}, pool);
//
//   export_shared_library(lower(f), t, "/tmp/mm.so");   // for another process
//   auto k2 = load_shared_library("/tmp/mm.so", "mm");
//
// Every path generates the same code: one exported C function per PrimFunc
// (targets/runtime/kernel_abi.h), optimised by LLVM's O3 pipeline for the
// target's CPU. Errors: kiln::Error for what a user controls (a target the
// back end cannot build or run, a kernel name that is not a C identifier,
// linking); kiln::InternalError for IR outside the lowered contract and for
// LLVM rejecting what kiln generated, naming the function.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "targets/runtime/compiled_kernel.h"
#include "targets/runtime/shared_library.h"
#include "targets/target.h"
#include "tir/stmt.h"

namespace kiln {

// JIT-compiles f for t (whose triple must be this process's). Thread-safe;
// builds on different threads overlap.
std::unique_ptr<CompiledKernel> build_llvm(const PrimFunc& lowered, const Target& target);

// Writes a shared library at `path` exporting f as the kernel `f.name()`,
// loadable with load_shared_library (or plain dlopen) by any process.
void export_shared_library(const PrimFunc& lowered, const Target& target, const std::string& path);
// One shared library exporting every function as its kernel (a model's),
// compiled on up to `threads` threads. Throws kiln::Error for two
// functions of one name.
void export_shared_library(const std::vector<PrimFunc>& lowered, const Target& target, const std::string& path,
                           int threads = 1);

// The module's LLVM IR as text, after O3 unless `optimize` is false.
std::string emit_llvm_ir(const PrimFunc& lowered, const Target& target, bool optimize = true);
// The target's assembly for f, as the shared library would contain it.
std::string emit_assembly(const PrimFunc& lowered, const Target& target);

}  // namespace kiln
