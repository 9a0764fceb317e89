// Padding as a stage of its own.
//
// Convolutions and pooling read their input through a "pad" tensor instead of
// testing bounds in their own bodies: the reduction stays a plain
// multiply-accumulate that tiling rules recognise, and schedules decide
// whether to materialise the padded copy or inline it back (compute_inline).
//
// The pad body is select(in_bounds, input[clamped index], value). Both sides
// of a Select may be evaluated (core/expr.h), so the load's index is clamped
// into the input: the load is always in bounds, and its value is discarded
// where in_bounds is false.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/te/tensor.h"

namespace kiln::ops {

// `t` with before[d] elements of `value` in front of dimension d and after[d]
// behind it. Returns `t` itself when nothing is padded. Extents of padded
// dimensions must be constants.
te::Tensor pad(const te::Tensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after, Expr value,
               const std::string& name = "pad");

}  // namespace kiln::ops
