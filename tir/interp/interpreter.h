// The reference interpreter: executes any PrimFunc on host buffers.
//
// It is the correctness oracle for everything else: every generated kernel is
// compared with it in tests, and the tuner compares candidates with it. So it
// favours obviously-right semantics, while staying fast enough for the small
// shapes of the test suite and a 512^3 matmul check: the PrimFunc is first
// compiled into a tree of small code objects with variables resolved to slots
// and buffers to table entries (tir/interp/program.h), then run.
//
// It runs both forms of the IR:
//  - block form (create_prim_func, schedules): BlockRealize binds iter vars,
//    a block's init runs when every reduce iter var is at the start of its
//    domain, alloc_buffers live for the block's extent;
//  - lowered form (tir/transform): flattened buffers, Allocate, vector
//    expressions (Ramp, Broadcast), parallel/vectorized/unrolled loops (run
//    serially: they have the same meaning).
//
// Arithmetic follows C/LLVM at the declared widths (tir/interp/semantics.h):
// integers wrap, Div/Mod truncate, FloorDiv/FloorMod floor; float16 and
// bfloat16 compute in float32 and round where a value takes that type;
// intrinsics compute in double; round() ties to even.
//
// Besides wrong arguments and out-of-bounds accesses, it reports as kiln::Error
// what generated code would leave undefined: integer division by zero, a float
// to integer cast out of range, a block iter var bound outside its domain.
// Expressions never short-circuit (And, Or and both arms of Select are all
// evaluated, as generated code may), so a guarded out-of-bounds load inside a
// Select is reported too; guard loads with IfThenElse instead.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

namespace interp {
struct Program;
}

// A view of caller-owned memory: dense row-major, element type dtype.
// float16 and bfloat16 elements are their 16-bit encodings; bool is one byte.
struct HostBuffer {
  DataType dtype;
  std::vector<int64_t> shape;
  void* data = nullptr;
};

// Runs f with params[i] bound to args[i]. Throws kiln::Error when the
// arguments do not match the parameters (count, dtype, shape) and on
// out-of-bounds accesses, naming the buffer and the index.
void interpret(const PrimFunc& f, const std::vector<HostBuffer>& args);

// Compiles once, runs many times (the tuner checks many inputs against one
// reference). One run at a time per Interpreter.
class Interpreter {
 public:
  // Throws kiln::Error for programs that cannot run: a variable or buffer used
  // outside its scope, Reduce, mismatched types.
  explicit Interpreter(const PrimFunc& f);
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;

  void run(const std::vector<HostBuffer>& args) const;

 private:
  std::unique_ptr<interp::Program> program_;
};

}  // namespace kiln
