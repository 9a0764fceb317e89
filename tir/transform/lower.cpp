#include "tir/transform/lower.h"

#include "core/error.h"
#include "tir/analysis/code_size.h"
#include "tir/analysis/verify.h"
#include "tir/transform/compact_buffers.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/insert_barriers.h"
#include "tir/transform/legalize_parallel.h"
#include "tir/transform/lower_blocks.h"
#include "tir/transform/partition_loops.h"
#include "tir/transform/prefetch_panels.h"
#include "tir/transform/simplify.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/unswitch_loops.h"
#include "tir/transform/vectorize_loop.h"

namespace kiln {

namespace {

// Runs one step and reports it.
struct Steps {
  const LowerOptions& options;
  PrimFunc f;
  void operator()(const char* name, PrimFunc next) {
    f = std::move(next);
    if (options.after_pass) options.after_pass(name, f);
  }
};

void to_loops(Steps& step) {
  step("lower_blocks", lower_blocks(step.f));
  step("compact_buffers", compact_buffers(step.f));
  step("flatten_buffers", flatten_buffers(step.f));
  step("simplify", simplify(step.f));
}

int64_t unrolled_size(const PrimFunc& f, const LowerOptions& options) {
  return code_size(f.body(), 32 * options.max_lanes);
}

// The refusal of LowerOptions::max_code_size.
void check_code_size(const PrimFunc& f, const LowerOptions& options) {
  if (options.max_code_size <= 0) return;
  const int64_t size = unrolled_size(f, options);
  if (size > options.max_code_size)
    KILN_USER_ERROR() << "code too large: " << f->name << " is " << size
                      << " IR nodes once unrolled, above the limit of " << options.max_code_size
                      << " (an auto-unroll step or unrolled tiles too large for their loop nest)";
}

}  // namespace

PrimFunc lower_to_loops(const PrimFunc& input, const LowerOptions& options) {
  if (options.verify) verify(input);
  Steps step{options, input};
  to_loops(step);
  return step.f;
}

PrimFunc lower(const PrimFunc& input, const LowerOptions& options) {
  if (options.verify) verify(input);
  Steps step{options, input};
  to_loops(step);
  step("unroll_loops", unroll_loops(step.f, options.max_unroll_extent));
  step("vectorize_loops", vectorize_loops(step.f, options.max_lanes));
  step("unroll_short_loops", unroll_short_loops(step.f));
  check_code_size(step.f, options);
  step("serialize_nested_parallel", serialize_nested_parallel(step.f));
  // Simplified before unswitching, so that guards unrolling made alike
  // (`p * 2 + 1 < 7 and 1 * 4 + 2 < 7` and `... and 1 * 4 + 3 < 7`, whose
  // second halves fold away) are one condition, moved out once; simplified
  // after only where unswitching changed the program.
  step("simplify", simplify(step.f));
  if (options.gpu) {
    step("insert_barriers", insert_barriers(step.f));
  } else {
    // Partitioned first, so that the guards of a window's border are gone
    // from the loop pieces inside it before unswitching looks for guards.
    // A candidate within the code size limit stays within it: the pieces
    // are given up where they would pass it.
    PrimFunc partitioned = partition_loops(step.f);
    if (!partitioned.same_as(step.f) &&
        (options.max_code_size <= 0 || unrolled_size(partitioned, options) <= options.max_code_size)) {
      step("partition_loops", std::move(partitioned));
      step("simplify", simplify(step.f));
    }
    const PrimFunc simplified = step.f;
    step("unswitch_loops", unswitch_loops(step.f));
    if (!step.f.same_as(simplified)) step("simplify", simplify(step.f));
    step("prefetch_panels", prefetch_panels(step.f));
  }
  check_code_size(step.f, options);
  if (options.verify) verify_lowered(step.f);
  return step.f;
}

}  // namespace kiln
