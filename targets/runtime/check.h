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
// reduction past 4096 terms: the rounding error of a sum reassociated (a
// reduction factored into partial sums, say) grows with its length, and a
// correct sum of 65536 float32 values can differ from the sequential one
// by 1.6e-4. A wrong schedule (terms missed or counted twice) errs by far
// more. A block annotated with kCheckToleranceAnn (tir/stmt.h) raises it to
// the value it declares.
double check_tolerance(const PrimFunc& f);

// Runs the reference interpreter on copies of `inputs` and returns them
// (the output is the last one).
std::vector<NDArray> reference_outputs(const PrimFunc& f, const std::vector<NDArray>& inputs);

}  // namespace kiln
