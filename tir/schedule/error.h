// Why a schedule primitive refused to run.
//
// Every legality check has its own subclass, so callers (tests, the search
// when it filters candidates) can tell the reasons apart by type, and each
// message names the block or loop at fault and the reason, worded the LLVM
// way: `fuse: loops 'i' and 'k' are not adjacent: 'j' lies between them`.
// A primitive throws before it changes anything, so a failed call leaves the
// schedule exactly as it was.
#pragma once

#include <string>

#include "core/error.h"

namespace kiln {

class ScheduleError : public Error {
 public:
  ScheduleError(const std::string& primitive, const std::string& reason)
      : Error(primitive + ": " + reason), primitive_(primitive) {}
  const std::string& primitive() const { return primitive_; }

 private:
  std::string primitive_;
};

#define KILN_SCHEDULE_ERROR(Name)            \
  class Name : public ScheduleError {        \
   public:                                   \
    using ScheduleError::ScheduleError;      \
  }

// A handle or name that resolves to nothing (a block since inlined, a loop
// since split, a block name the function does not have).
KILN_SCHEDULE_ERROR(NotFoundError);
// A handle of the wrong kind in a replayed trace, or a bad argument value.
KILN_SCHEDULE_ERROR(BadArgumentError);
// split: factors whose product is below the loop's extent, or more than one
// inferred factor, or a non-positive factor.
KILN_SCHEDULE_ERROR(FactorError);
// fuse / reorder: the loops are not one chain of single-child loops.
KILN_SCHEDULE_ERROR(LoopsNotAdjacentError);
// A loop that needs a constant extent (or zero start) does not have one.
KILN_SCHEDULE_ERROR(LoopShapeError);
// parallel / vectorize / bind: the loop carries a reduction, or a block
// under it is bound to it in a way that is not a spatial axis.
KILN_SCHEDULE_ERROR(NotDataParallelError);
// A loop variable used in a way the primitive cannot rewrite (e.g. a loop's
// bound depending on another loop being reordered around it).
KILN_SCHEDULE_ERROR(DependentLoopError);
// cache_write: another block writes the same buffer (e.g. the init block
// decompose_reduction made), so redirecting one writer would split the buffer.
KILN_SCHEDULE_ERROR(NotSingleWriterError);
// transform_layout: an index map that could send two elements to one place,
// or a buffer whose layout cannot be re-indexed.
KILN_SCHEDULE_ERROR(LayoutError);
// rfactor: no block under the loop, or the block is not a reduction (an
// init and an update `buf[idx] = buf[idx] <op> value` writing one element
// per spatial point).
KILN_SCHEDULE_ERROR(NotReductionBlockError);
// rfactor: the update's combiner is not add, multiply, min or max, or the
// value it folds in also reads the accumulator, so partial results cannot be
// regrouped.
KILN_SCHEDULE_ERROR(UnknownCombinerError);
// rfactor: the loop feeds a spatial axis of the block, or no reduction axis.
KILN_SCHEDULE_ERROR(NotReductionLoopError);
// rfactor: other blocks share the loop nest of the block, so the write-back
// placed after the nest would run after they read the result.
KILN_SCHEDULE_ERROR(NotSingleBlockError);
// A sampling decision that does not fit the instruction.
KILN_SCHEDULE_ERROR(DecisionError);

#undef KILN_SCHEDULE_ERROR

}  // namespace kiln
