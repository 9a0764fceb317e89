// How much code a lowered function becomes, counted before LLVM sees it.
#include <gtest/gtest.h>

#include "tir/analysis/code_size.h"
#include "tir/parser/parser.h"

namespace kiln {
namespace {

int64_t size_of(const std::string& text, int vector_bits = 512) {
  return code_size(parse_prim_func(text).body(), vector_bits);
}

TEST(CodeSize, ALoopCountsItsBodyOnce) {
  // The loop, the store, its value and its index: 4 nodes, then the loop
  // variable and the extents.
  const int64_t once = size_of(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.float32(0)
)");
  const int64_t longer = size_of(R"(
@T.prim_func
def f(A: T.Buffer((800,), "float32")):
    for i in range(800):
        A[i] = T.float32(0)
)");
  EXPECT_EQ(once, longer);
}

TEST(CodeSize, AnUnrollLoopCountsEveryCopy) {
  const int64_t serial = size_of(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.float32(0)
)");
  const int64_t unrolled = size_of(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in T.unroll(8):
        A[i] = T.float32(0)
)");
  EXPECT_GT(unrolled, 6 * serial);
}

TEST(CodeSize, AVectorizedLoopCountsOneCopyPerRegister) {
  const std::string text = R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for i in T.vectorized(64):
        A[i] = T.float32(0)
)";
  // 64 floats: 4 registers of 512 bits, 8 of 256.
  EXPECT_GT(size_of(text, 256), size_of(text, 512));
  EXPECT_LT(size_of(text, 256), 3 * size_of(text, 512));
}

}  // namespace
}  // namespace kiln
