// Where a block is computed: what compute_at, the inline primitives and
// sample_compute_location share.
//
// sample_compute_location offers only the locations where the primitive
// would run. It asks the primitives' own check-only paths, which return the
// error the primitive would raise (null: legal) without building anything;
// each primitive raises what its check returns, so the two never disagree.
// compute_at given the inline mark runs the inlining function below.
#pragma once

#include <memory>

#include "tir/schedule/error.h"
#include "tir/schedule/locate.h"

namespace kiln {

// compute_at(block, loop) (reverse: reverse_compute_at).
ScheduleErrorPtr compute_at_error(const Located& block, const Located& loop, bool reverse);

// compute_at_error for one block at many loops of the function it was
// located in, for a fraction of the cost of asking each: what depends on
// the block alone is found once, and the part of the linking buffer each
// loop needs comes from one walk of the nest (NestRegions).
class MoveChecker {
 public:
  MoveChecker(const Located& block, bool reverse);
  ~MoveChecker();
  ScheduleErrorPtr error_at(const Located& loop);

  class Impl;  // compute_at.cpp; the primitive plans its move with it

 private:
  std::unique_ptr<Impl> impl_;
};
// compute_inline(block) on `f`.
ScheduleErrorPtr compute_inline_error(const PrimFunc& f, const Located& block);

// `f` with the producer `block` inlined into its consumers; throws what
// compute_inline_error returns.
PrimFunc inline_into_consumers(const PrimFunc& f, const Located& block);
// `f` with the consumer `block` inlined into its producer.
PrimFunc inline_into_producer(const PrimFunc& f, const Located& block);

}  // namespace kiln
