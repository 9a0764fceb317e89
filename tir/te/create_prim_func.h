// From tensor expressions to TensorIR: the canonical, unscheduled program.
//
// Every compute stage becomes one loop nest (serial loops over its spatial
// axes, then its reduce axes) around one block named after the tensor, in an
// order where each stage follows the stages it reads. Blocks refer only to
// their own iter vars, bound to the loop vars by their BlockRealize, and
// record the regions they read and write, so schedules can move them freely.
// For the matmul of tir/te/tensor.h:
//
//   block root():                         # alloc_buffers: intermediate stages
//     for i0 in [0, M): for i1 in [0, N): for k in [0, K):
//       block C(v_i0: spatial = i0, v_i1: spatial = i1, v_k: reduce = k):
//         reads A[v_i0, v_k], B[v_k, v_i1]    writes C[v_i0, v_i1]
//         init: C[v_i0, v_i1] = 0
//         C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
//
// The same definition always gives the same program (names included), which
// the workload key relies on.
#pragma once

#include <string>
#include <vector>

#include "tir/stmt.h"
#include "tir/te/tensor.h"

namespace kiln::te {

// The function whose parameters are the buffers of `args`: inputs
// (placeholders) then outputs, in calling order. Every placeholder the
// outputs depend on must be among `args`; compute tensors that are not become
// allocations of the root block. Block names are the tensors' names, made
// unique with a numeric suffix where two stages share one.
PrimFunc create_prim_func(const std::vector<Tensor>& args, const std::string& name);

}  // namespace kiln::te
