// N-D data movement and broadcasting (ops/transform.h, ops/broadcast.h) on
// the reference interpreter, against the index arithmetic written out.
#include <gtest/gtest.h>

#include "ops/broadcast.h"
#include "ops/common.h"
#include "ops/transform.h"
#include "targets/runtime/ndarray.h"
#include "tir/te/create_prim_func.h"

namespace kiln::ops {
namespace {

// Runs out(inputs) on the interpreter: inputs filled 0, 1, 2, ... in order.
NDArray run(const std::vector<te::Tensor>& inputs, const te::Tensor& out) {
  std::vector<te::Tensor> args = inputs;
  args.push_back(out);
  PrimFunc f = te::create_prim_func(args, "f");
  std::vector<NDArray> arrays;
  std::vector<HostBuffer> bufs;
  for (const te::Tensor& t : args) {
    std::vector<int64_t> shape;
    for (const Expr& e : t.shape()) shape.push_back(*as_const_int(e));
    arrays.emplace_back(t.dtype(), shape);
  }
  for (size_t k = 0; k < inputs.size(); ++k)
    for (int64_t i = 0; i < arrays[k].numel(); ++i) arrays[k].set(i, static_cast<double>(i + 100 * k));
  for (NDArray& a : arrays) bufs.push_back(a.host_buffer());
  interpret(f, bufs);
  return std::move(arrays.back());
}

TEST(Transform, TransposeMovesAxes) {
  te::Tensor A = te::placeholder(i32s({2, 3, 4}), DataType::Float32(), "A");
  NDArray out = run({A}, transpose(A, {2, 0, 1}));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{4, 2, 3}));
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(out.get((k * 2 + i) * 3 + j), (i * 3 + j) * 4 + k);
}

TEST(Transform, ReshapeKeepsRowMajorOrder) {
  te::Tensor A = te::placeholder(i32s({2, 1, 6}), DataType::Float32(), "A");
  NDArray out = run({A}, reshape(A, {3, 4, 1}));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{3, 4, 1}));
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(out.get(i), i);
}

TEST(Transform, ConcatJoinsAlongTheAxis) {
  te::Tensor A = te::placeholder(i32s({2, 1}), DataType::Float32(), "A");
  te::Tensor B = te::placeholder(i32s({2, 2}), DataType::Float32(), "B");
  NDArray out = run({A, B}, concat({A, B}, 1));
  // Rows: A[i, 0], B[i, 0], B[i, 1]; A holds 0, 1 and B 100..103.
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{2, 3}));
  const double want[] = {0, 100, 101, 1, 102, 103};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.get(i), want[i]);
}

TEST(Transform, StridedSliceStepsBothWays) {
  te::Tensor A = te::placeholder(i32s({2, 6}), DataType::Float32(), "A");
  NDArray out = run({A}, strided_slice(A, {1, 5}, {1, -2}, {1, 3}));
  const double want[] = {11, 9, 7};
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(out.get(i), want[i]);
}

TEST(Transform, TakeGathersConstantPositions) {
  te::Tensor A = te::placeholder(i32s({3, 4}), DataType::Float32(), "A");
  NDArray out = run({A}, take(A, {3, -4, 1, 1}, {2, 2}, 1));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{3, 2, 2}));
  const double cols[] = {3, 0, 1, 1};
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(out.get(r * 4 + j), r * 4 + cols[j]);
  NDArray one = run({A}, take(A, {2}, {}, 0));
  ASSERT_EQ(one.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(one.get(3), 11);
}

TEST(Broadcast, ExtentOneAxesRepeat) {
  te::Tensor A = te::placeholder(i32s({2, 1, 3}), DataType::Float32(), "A");
  te::Tensor B = te::placeholder(i32s({4, 1}), DataType::Float32(), "B");
  NDArray out = run({A, B}, map2(A, B, [](Expr a, Expr b) { return a - b; }, "sub"));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{2, 4, 3}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(out.get((i * 4 + j) * 3 + k), (i * 3 + k) - (100 + j));
  te::Tensor C = te::placeholder(i32s({3, 2}), DataType::Float32(), "C");
  EXPECT_THROW(map2(A, C, [](Expr a, Expr b) { return a + b; }, "add"), Error);
}

}  // namespace
}  // namespace kiln::ops
