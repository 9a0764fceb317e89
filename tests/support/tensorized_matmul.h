// The int8 matrix product scheduled for a dot-product intrinsic
// (tir/tensor_intrin.h), for the tests of tensorize in the schedule, the
// interpreter and the code generator.
#pragma once

#include <cstdint>
#include <vector>

#include "targets/runtime/ndarray.h"
#include "tir/schedule/schedule.h"

namespace kiln::testing {

// A schedule of matmul_u8s8s32 (N a multiple of `lanes`, K of 4) made
// ready for a u8 x s8 -> s32 dot product of `lanes` lanes: B copied into
// the intrinsic's operand layout ([N/lanes, K/4, lanes, 4], four bytes of
// k for each column), C's loops i, j_0, k_0, j_1 (lanes), k_1 (4) with the
// init before k_0. Returns j_1, the loop to tensorize.
LoopRV pack_for_dot_product(Schedule& sch, int64_t lanes);

// Arguments for `f` (uint8 and int8 inputs) over the types' whole ranges,
// seeded: the products the instructions must not saturate on.
std::vector<NDArray> full_range_int8_arguments(const PrimFunc& f, double int8_lo = -128, double int8_hi = 127);

}  // namespace kiln::testing
