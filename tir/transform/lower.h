// The lowering pipeline: block-form PrimFunc -> the lowered form that code
// generators take (docs/lowered_ir.md). One function, read top to bottom; each
// step is a pass declared in its own header in this folder.
#pragma once

#include <functional>
#include <string>

#include "tir/stmt.h"

namespace kiln {

struct LowerOptions {
  // Widest vector the target has, in lanes of 32-bit elements (16 with
  // AVX-512, 8 with AVX2).
  int max_lanes = 16;
  // Unroll loops of kind unroll up to this constant extent.
  int64_t max_unroll_extent = 64;
  // For a GPU kernel: barriers between the phases that share memory
  // (insert_barriers.h), and no unswitching, which would copy them into
  // branches only some threads take.
  bool gpu = false;
  // Refuse, with a kiln::Error naming the size, a program larger than this
  // in IR nodes once unrolled (tir/analysis/code_size.h): what the builder
  // sets so that a candidate whose code explodes is refused before LLVM
  // spends seconds on it. 0: no limit (a model's chosen schedules).
  int64_t max_code_size = 0;
  // Check the input and the result (tir/analysis/verify.h).
  bool verify = true;
  // Called with the pass name and the function after each step (for
  // `kiln print --lowered --print-after-all`).
  std::function<void(const std::string& pass, const PrimFunc& f)> after_pass;
};

PrimFunc lower(const PrimFunc& f, const LowerOptions& options = {});

// The first half of lower(): blocks become loops over flat, compacted
// buffers, simplified, with every loop's kind and annotations still as the
// schedule set them (no unrolling, no vectors yet). What the cost model's
// features read: the schedule's intent, at a fraction of lower()'s cost.
PrimFunc lower_to_loops(const PrimFunc& f, const LowerOptions& options = {});

}  // namespace kiln
