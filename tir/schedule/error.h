// Why a schedule primitive refused to run.
//
// Every legality check has its own subclass, so callers (tests, the search
// when it filters candidates) can tell the reasons apart by type or by
// kind (ScheduleErrorKind, one per subclass), and each
// message names the block or loop at fault and the reason, worded the LLVM
// way: `fuse: loops 'i' and 'k' are not adjacent: 'j' lies between them`.
// A primitive throws before it changes anything, so a failed call leaves the
// schedule exactly as it was. A check-only path (asking whether a primitive
// would run, as sample_compute_location does for every candidate) returns the
// error instead of throwing it, and the primitive raises what it returns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"

namespace kiln {

// The schedule error classes, XError for each X: the primitives' below, then
// the refusals of the search's postprocessing (search/postproc.h), which
// completes a drawn schedule and so refuses it like a primitive.
#define KILN_FOR_EACH_SCHEDULE_ERROR(X) \
  X(NotFound)                           \
  X(BadArgument)                        \
  X(Factor)                             \
  X(LoopsNotAdjacent)                   \
  X(LoopShape)                          \
  X(NotDataParallel)                    \
  X(DependentLoop)                      \
  X(NotSingleWriter)                    \
  X(Layout)                             \
  X(NotReductionBlock)                  \
  X(UnknownCombiner)                    \
  X(NotReductionLoop)                   \
  X(NotSingleBlock)                     \
  X(NotSingleReader)                    \
  X(OutputBuffer)                       \
  X(InlineBody)                         \
  X(Decision)                           \
  X(RegisterTile)                       \
  X(GpuThreads)                         \
  X(GpuSharedMemory)                     \
  X(TensorizeMismatch)

enum class ScheduleErrorKind : uint8_t {
#define X(Name) k##Name,
  KILN_FOR_EACH_SCHEDULE_ERROR(X)
#undef X
  kOther,  // not a schedule error: another kiln::Error met on the way (TraceError)
};
// The class's name, "FactorError"; "Error" for kOther: for people (the
// tuner's count of failed draws), never to branch on.
const char* schedule_error_name(ScheduleErrorKind k);

class ScheduleError : public Error {
 public:
  ScheduleError(const std::string& primitive, const std::string& reason)
      : Error(primitive + ": " + reason), primitive_(primitive) {}
  const std::string& primitive() const { return primitive_; }
  // Throws this error as its own class.
  [[noreturn]] virtual void raise() const = 0;
  // The class, as data: what the search counts failures by.
  virtual ScheduleErrorKind kind() const = 0;

 private:
  std::string primitive_;
};

// What a check-only path returns: the error, or null when the call is legal.
using ScheduleErrorPtr = std::unique_ptr<ScheduleError>;

template <typename E>
ScheduleErrorPtr schedule_error(const std::string& primitive, const std::string& reason) {
  return std::make_unique<E>(primitive, reason);
}

// Declares NameError, of kind kName.
#define KILN_SCHEDULE_ERROR(Name)                                                        \
  class Name##Error : public ScheduleError {                                             \
   public:                                                                               \
    using ScheduleError::ScheduleError;                                                  \
    [[noreturn]] void raise() const override { throw *this; }                            \
    ScheduleErrorKind kind() const override { return ScheduleErrorKind::k##Name; }       \
  }

// A handle or name that resolves to nothing (a block since inlined, a loop
// since split, a block name the function does not have), or a block or
// buffer the primitive needs that is not there (compute_inline: a reader;
// reverse_compute_inline: a producer).
KILN_SCHEDULE_ERROR(NotFound);
// A handle of the wrong kind in a replayed trace, or a bad argument value.
KILN_SCHEDULE_ERROR(BadArgument);
// split: factors whose product is below the loop's extent, or more than one
// inferred factor, or a non-positive factor.
KILN_SCHEDULE_ERROR(Factor);
// fuse / reorder: the loops are not one chain of single-child loops.
KILN_SCHEDULE_ERROR(LoopsNotAdjacent);
// A loop that needs a constant extent (or zero start) does not have one.
KILN_SCHEDULE_ERROR(LoopShape);
// parallel / vectorize / bind: the loop carries a reduction, or a block
// under it is bound to it in a way that is not a spatial axis; compute_inline
// / reverse_compute_inline: the block that would be inlined (the producer
// that would take the consumer in) is a reduction.
KILN_SCHEDULE_ERROR(NotDataParallel);
// A loop variable used in a way the primitive cannot rewrite (e.g. a loop's
// bound depending on another loop being reordered around it), or blocks in
// an order the move would break (a value read after another block changed it).
KILN_SCHEDULE_ERROR(DependentLoop);
// cache_write: another block writes the same buffer (e.g. the init block
// decompose_reduction made), so redirecting one writer would split the buffer.
// compute_inline: another block writes the buffer the inlined block writes;
// reverse_compute_inline: the consumer reads buffers of more than one
// producer, or the buffer linking them has another writer.
KILN_SCHEDULE_ERROR(NotSingleWriter);
// transform_layout: an index map that could send two elements to one place,
// or a buffer whose layout cannot be re-indexed.
KILN_SCHEDULE_ERROR(Layout);
// rfactor: no block under the loop, or the block is not a reduction (an
// init and an update `buf[idx] = buf[idx] <op> value` writing one element
// per spatial point).
KILN_SCHEDULE_ERROR(NotReductionBlock);
// rfactor: the update's combiner is not add, multiply, min or max, or the
// value it folds in also reads the accumulator, so partial results cannot be
// regrouped.
KILN_SCHEDULE_ERROR(UnknownCombiner);
// rfactor: the loop feeds a spatial axis of the block, or no reduction axis.
KILN_SCHEDULE_ERROR(NotReductionLoop);
// rfactor: other blocks share the loop nest of the block, so the write-back
// placed after the nest would run after they read the result.
KILN_SCHEDULE_ERROR(NotSingleBlock);
// reverse_compute_inline: another block reads the buffer the consumer reads
// from its producer; it would no longer be written.
KILN_SCHEDULE_ERROR(NotSingleReader);
// compute_inline / reverse_compute_inline: the buffer that inlining would
// stop writing is a parameter of the function (an output).
KILN_SCHEDULE_ERROR(OutputBuffer);
// compute_inline / reverse_compute_inline: a block is not one store of the
// form inlining substitutes: its value stored at its iter vars, each once
// (the inlined producer), or loaded at them (the inlined consumer), with no
// predicate and no allocations, and not reading what it writes.
KILN_SCHEDULE_ERROR(InlineBody);
// A sampling decision that does not fit the instruction.
KILN_SCHEDULE_ERROR(Decision);
// tensorize: the loop nest does not compute what the intrinsic's
// description does (tir/tensor_intrin.h); the message says what differs.
KILN_SCHEDULE_ERROR(TensorizeMismatch);

}  // namespace kiln
