// compact_buffers: allocations sink to where they are used and shrink to
// the part used there.
#include <gtest/gtest.h>

#include "core/structural.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"
#include "tir/transform/compact_buffers.h"

namespace kiln {
namespace {

void expect_compacts(const std::string& before, const std::string& after) {
  PrimFunc got = compact_buffers(parse_prim_func(before));
  PrimFunc want = parse_prim_func(after);
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << got << "expected:\n" << want;
}

TEST(CompactBuffers, TileOfAnAccumulator) {
  expect_compacts(R"(@T.prim_func
def f(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    L = T.allocate((8, 12), "float32", scope="local")
    for i0, j0 in T.grid(2, 3):
        for i1, j1 in T.grid(4, 4):
            L[i0 * 4 + i1, j0 * 4 + j1] = A[i0 * 4 + i1, j0 * 4 + j1] * T.float32(2)
        for i1, j1 in T.grid(4, 4):
            C[i0 * 4 + i1, j0 * 4 + j1] = L[i0 * 4 + i1, j0 * 4 + j1]
)",
                  R"(@T.prim_func
def f(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    for i0, j0 in T.grid(2, 3):
        L = T.allocate((4, 4), "float32", scope="local")
        for i1, j1 in T.grid(4, 4):
            L[i0 * 4 + i1 - i0 * 4, j0 * 4 + j1 - j0 * 4] = A[i0 * 4 + i1, j0 * 4 + j1] * T.float32(2)
        for i1, j1 in T.grid(4, 4):
            C[i0 * 4 + i1, j0 * 4 + j1] = L[i0 * 4 + i1 - i0 * 4, j0 * 4 + j1 - j0 * 4]
)");
}

TEST(CompactBuffers, WholeBufferStaysWhole) {
  const char* text = R"(@T.prim_func
def f(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    L = T.allocate((8,), "float32", scope="local")
    for i in range(8):
        L[i] = A[i]
    for i in range(8):
        C[i] = L[7 - i]
)";
  expect_compacts(text, text);
}

TEST(CompactBuffers, UnusedAllocationDisappears) {
  expect_compacts(R"(@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    L = T.allocate((8,), "float32", scope="local")
    for i in range(8):
        A[i] = T.float32(0)
)",
                  R"(@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.float32(0)
)");
}

}  // namespace
}  // namespace kiln
