// Is a kernel's output right? The comparison every check in kiln makes:
// `kiln bench-op --check`, the runner's check against the reference
// program, and the tests' check against the reference interpreter.
#pragma once

#include <vector>

#include "targets/runtime/ndarray.h"
#include "tir/stmt.h"

namespace kiln {

// Largest element-wise relative error of `got` against `want`:
// |got - want| / max(|want|, 1), so values of magnitude below 1 are compared
// absolutely. NaN in one but not the other counts as an infinite error.
double max_relative_error(const NDArray& got, const NDArray& want);

// The largest error a correct program of this dtype may show (1e-4 for
// float32, 1e-2 for 16-bit floats, 0 for integers): room for reassociated
// sums and fused multiply-adds, far below what a wrong schedule produces.
double check_tolerance(DataType t);

// check_tolerance of f's output dtype, grown in proportion to f's longest
// reduction past 1024 terms: the rounding error of a sum reassociated (a
// reduction factored into partial sums, vectorized, fused into FMAs) grows
// with its length. With inputs in [-1, 1] the largest error over an
// output's elements, relative to max(|want|, 1), is about 0.4 u n (u the
// unit roundoff, n the terms): 1.2e-4 for a 512-channel 3x3 convolution,
// 4608 terms, where 1e-4 x n / 1024 allows 4.5e-4 (docs/measurement.md).
// A wrong schedule (terms missed or counted twice) errs by far more. A
// block annotated with kCheckToleranceAnn (tir/stmt.h) raises it to the
// value it declares.
double check_tolerance(const PrimFunc& f);

// Runs the reference interpreter on copies of `inputs` and returns them
// (the output is the last one).
std::vector<NDArray> reference_outputs(const PrimFunc& f, const std::vector<NDArray>& inputs);

}  // namespace kiln
