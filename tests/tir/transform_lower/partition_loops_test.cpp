// Loop partitioning (tir/transform/partition_loops.h) as before/after IR,
// each followed by simplify, which folds the guards the pieces settle.
#include <gtest/gtest.h>

#include "core/structural.h"
#include "support/expect_ir.h"
#include "tir/parser/parser.h"
#include "tir/transform/partition_loops.h"
#include "tir/transform/simplify.h"

namespace kiln {
namespace {

TEST(PartitionLoops, AWindowsBorderTilesSplitFromItsInteriorOnes) {
  // A 3-tap window over 8 outputs of a 8-wide input padded by one on each
  // side, its padding inlined: only q = 0 reads left of the input, only
  // q = 7 right of it.
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for q, s in T.grid(8, 3):
        C[q] = C[q] + T.Select(q + s >= 1 and q + s < 9, A[T.min(T.max(q + s - 1, 0), 7)], T.float32(0))
)");
  EXPECT_IR(simplify(partition_loops(before)), R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for s in range(3):
        C[0] = C[0] + T.Select(s > 0, A[T.max(s + -1, 0)], T.float32(0))
    for q in range(1, 7):
        for s in range(3):
            C[q] = C[q] + A[q + s + -1]
    for s in range(3):
        C[7] = C[7] + T.Select(s < 2, A[T.min(s + 6, 7)], T.float32(0))
)");
}

TEST(PartitionLoops, ConditionsItCannotSettleLeaveTheLoopWhole) {
  // Before and after: the guard names n, bound outside the loop (a
  // parallel job's row, say); the guard is not linear in q; the guard
  // holds for every q already.
  for (const char* text : {R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for n in T.parallel(4):
        for q in range(8):
            A[q] = T.Select(q + n > 3, A[q], T.float32(0))
)",
                           R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for q in range(8):
        A[q] = T.Select(q * q > 3, A[q], T.float32(0))
)",
                           R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for q in range(8):
        A[q] = T.Select(q < 9, A[q], T.float32(0))
)"}) {
    const PrimFunc f = parse_prim_func(text);
    EXPECT_TRUE(partition_loops(f).same_as(f)) << text;
  }
}

TEST(PartitionLoops, ALoopTooLargeToCopyStaysWhole) {
  // kMaxPartitionStmts statements and more under one guarded loop: copying
  // them thrice would cost the build more than the guards cost the run.
  std::string text = "@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\")):\n    for q in range(8):\n";
  for (int64_t i = 0; i <= kMaxPartitionStmts; ++i)
    text += "        A[q] = T.Select(q > 0, A[q - 1], T.float32(0))\n";
  const PrimFunc f = parse_prim_func(text);
  EXPECT_TRUE(partition_loops(f).same_as(f));
}

}  // namespace
}  // namespace kiln
