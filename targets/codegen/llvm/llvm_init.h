// LLVM's target registry must be filled once per process before any target
// lookup; every entry point of the LLVM back end calls this first.
#pragma once

namespace kiln::llvm_backend {

// Registers every target LLVM was built with (so -mtriple may name another
// architecture for emit_assembly), thread-safe, idempotent.
void ensure_llvm_initialized();

}  // namespace kiln::llvm_backend
