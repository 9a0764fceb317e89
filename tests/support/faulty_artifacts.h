// Candidates that fail on purpose, built for real, so that every error path
// of the runner is tested with the real thing: a kernel that really
// segfaults, aborts, executes an undefined instruction, spins forever, or
// computes a wrong answer, loaded and run by a real runner.
#pragma once

#include <string>

#include "rpc/measure.h"
#include "targets/build.h"
#include "tir/stmt.h"

namespace kiln::testing {

enum class Fault {
  kSegfault,  // stores through a null pointer: SIGSEGV
  kAbort,     // calls abort(): SIGABRT
  kIllegal,   // executes ud2, the instruction no x86 CPU has: SIGILL
  kHang,      // loops forever
};

// A shared library in kiln's kernel ABI with f's name and signature whose
// kernel does `fault`, compiled from LLVM IR for `target`.
Artifact faulty_artifact(const PrimFunc& f, const Target& target, Fault fault);

// f's default program lowered, with every store to the output changed to
// store value + 1: a kernel that runs fine and is wrong everywhere.
Artifact wrong_answer_artifact(const PrimFunc& f, const Target& target);

// The default program of f, built (what a correct candidate looks like).
Artifact default_artifact(const PrimFunc& f, const Target& target);

// A candidate for f (checked against the reference of id workload_key(f)).
rpc::MeasureInput candidate(uint64_t id, const PrimFunc& f, Artifact a);
// The reference for f's candidates.
rpc::ReferenceProgram reference(const PrimFunc& f, const Target& target);

}  // namespace kiln::testing
