// How much code a lowered function becomes, counted before LLVM sees it.
#include <gtest/gtest.h>

#include "tir/analysis/code_size.h"
#include "tir/parser/parser.h"

namespace kiln {
namespace {

// One loop, written `loop` (range, T.unroll, T.vectorized), of `n` trips
// storing zeros into A[n].
std::string zero_loop(const std::string& loop, int64_t n) {
  return "@T.prim_func\ndef f(A: T.Buffer((" + std::to_string(n) + ",), \"float32\")):\n    for i in " + loop + "(" +
         std::to_string(n) + "):\n        A[i] = T.float32(0)\n";
}

int64_t size_of(const std::string& text, int vector_bits = 512) {
  return code_size(parse_prim_func(text).body(), vector_bits);
}

TEST(CodeSize, ALoopCountsItsBodyOnce) {
  // The loop, the store, its value and its index: 4 nodes, then the loop
  // variable and the extents, whatever the trip count.
  EXPECT_EQ(size_of(zero_loop("range", 8)), size_of(zero_loop("range", 800)));
}

TEST(CodeSize, AnUnrollLoopCountsEveryCopy) {
  EXPECT_GT(size_of(zero_loop("T.unroll", 8)), 6 * size_of(zero_loop("range", 8)));
}

TEST(CodeSize, AVectorizedLoopCountsOneCopyPerRegister) {
  const std::string text = zero_loop("T.vectorized", 64);
  // 64 floats: 4 registers of 512 bits, 8 of 256.
  EXPECT_GT(size_of(text, 256), size_of(text, 512));
  EXPECT_LT(size_of(text, 256), 3 * size_of(text, 512));
}

}  // namespace
}  // namespace kiln
