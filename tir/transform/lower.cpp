#include "tir/transform/lower.h"

#include "tir/analysis/verify.h"
#include "tir/transform/compact_buffers.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/legalize_parallel.h"
#include "tir/transform/lower_blocks.h"
#include "tir/transform/simplify.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/vectorize_loop.h"

namespace kiln {

PrimFunc lower(const PrimFunc& input, const LowerOptions& options) {
  if (options.verify) verify(input);
  PrimFunc f = input;
  auto step = [&](const char* name, PrimFunc next) {
    f = std::move(next);
    if (options.after_pass) options.after_pass(name, f);
  };
  step("lower_blocks", lower_blocks(f));
  step("compact_buffers", compact_buffers(f));
  step("flatten_buffers", flatten_buffers(f));
  step("simplify", simplify(f));
  step("unroll_loops", unroll_loops(f, options.max_unroll_extent));
  step("vectorize_loops", vectorize_loops(f, options.max_lanes));
  step("serialize_nested_parallel", serialize_nested_parallel(f));
  step("simplify", simplify(f));
  if (options.verify) verify_lowered(f);
  return f;
}

}  // namespace kiln
