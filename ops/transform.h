// Data movement over tensors of any rank: the reshapes, transposes, slices
// and joins between a model's compute operators. Each is one stage of pure
// indexing, which schedules inline into its consumer (auto-inline), so a
// reshape between two operators costs no pass over memory of its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/te/tensor.h"

namespace kiln::ops {

// out[i_0, ..., i_n] = A[i_perm[0], ...]: out's axis d is A's axis perm[d].
te::Tensor transpose(const te::Tensor& A, const std::vector<int64_t>& perm, const std::string& name = "transpose");

// The same elements, row-major, in `shape` (whose product must be A's
// element count); stage `name`.
te::Tensor reshape(const te::Tensor& A, const std::vector<int64_t>& shape, const std::string& name = "reshape");

// The tensors joined along `axis` (every other extent equal).
te::Tensor concat(const std::vector<te::Tensor>& parts, int64_t axis, const std::string& name = "concat");

// out[.., i, ..] = A[.., start[d] + i * step[d], ..] on every axis d, out's
// extents `count` (steps may be negative).
te::Tensor strided_slice(const te::Tensor& A, const std::vector<int64_t>& start, const std::vector<int64_t>& step,
                         const std::vector<int64_t>& count, const std::string& name = "slice");

// out = A with the positions `indices` (constants, in range) taken along
// `axis`: out[a.., j.., b..] = A[a.., indices[j..], b..]; `index_shape` is the
// shape of `indices` (empty for one index, which removes the axis).
te::Tensor take(const te::Tensor& A, const std::vector<int64_t>& indices, const std::vector<int64_t>& index_shape,
                int64_t axis, const std::string& name = "take");

}  // namespace kiln::ops
