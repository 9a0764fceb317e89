// Checks and helpers shared by the operator definitions. Operators are
// called with tensors a user or a graph front end built, so shape and type
// mismatches are user errors that name the operator and the tensor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/te/tensor.h"

namespace kiln::ops {

// An int32 constant, the type of every extent and index the ops build.
inline Expr i32(int64_t v) { return int_imm(DataType::Int32(), v); }

// A shape of int32 constant extents.
inline std::vector<Expr> i32s(const std::vector<int64_t>& extents) {
  std::vector<Expr> out;
  for (int64_t e : extents) out.push_back(i32(e));
  return out;
}

// The constant extent of dimension d of t.
int64_t const_extent(const std::string& op, const te::Tensor& t, int d);

void require_rank(const std::string& op, const te::Tensor& t, int rank);
void require_same_dtype(const std::string& op, const te::Tensor& a, const te::Tensor& b);
// Extents d_a of a and d_b of b are equal, when both are constants.
void require_same_extent(const std::string& op, const te::Tensor& a, int d_a, const te::Tensor& b, int d_b);

}  // namespace kiln::ops
