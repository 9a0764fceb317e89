// Lowering for a target: the tir pipeline (tir/transform/lower.h) with the
// knobs a target decides, such as the widest vector its registers hold.
// Everything that turns a scheduled PrimFunc into code goes through here and
// then build() (targets/build.h), so a new back end changes these two
// places, not their callers.
#pragma once

#include <functional>
#include <string>

#include "targets/target.h"
#include "tir/transform/lower.h"

namespace kiln {

// What `target` runs when no schedule is given: `f` itself on a CPU; on a
// GPU, `f` with its nests bound to blocks of threads (tir/schedule/auto_bind.h),
// since a GPU runs nothing that is not bound.
PrimFunc default_program(const PrimFunc& f, const Target& target);

// The tir pipeline's options for `target`.
LowerOptions lower_options_for(const Target& target);

// lower(f, lower_options_for(target)), checked for a GPU target by
// verify_gpu (targets/codegen/gpu/verify_gpu.h), calling `after_pass` after each step
// when given (`kiln print --print-after-all`), refusing code larger than
// `max_code_size` when it is not 0 (LowerOptions::max_code_size).
PrimFunc lower(const PrimFunc& f, const Target& target,
               const std::function<void(const std::string& pass, const PrimFunc& f)>& after_pass = {},
               int64_t max_code_size = 0);

}  // namespace kiln
