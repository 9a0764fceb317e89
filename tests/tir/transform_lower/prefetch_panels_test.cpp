// Before/after tests of prefetch_panels (tir/transform/prefetch_panels.h):
// a nest that reads a panel of a buffer over and over gets the next panel
// prefetched; nests that do not, or whose panel is too small or not a
// panel at all, stay as they are.
#include <gtest/gtest.h>

#include "support/expect_ir.h"
#include "tir/parser/parser.h"
#include "tir/transform/prefetch_panels.h"

namespace kiln {
namespace {

// 4 column panels of 16 of a packed 512 x 64 weight: every row tile i
// runs the reduction over panel p, 32 KiB.
constexpr const char* kPanels = R"(
@T.prim_func
def f(A: T.Buffer((2048,), "float32"), W: T.Buffer((32768,), "float32"), C: T.Buffer((256,), "float32")):
    for p in T.parallel(4):
        for i in range(4):
            for k in range(512):
                for j in range(16):
                    C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 512 + k] * W[p * 8192 + k * 16 + j]
)";

TEST(PrefetchPanels, TheNextPanelIsFetchedOverTheRowTilesOfThisOne) {
  // 512 lines over 4 x 512 iterations of i and k: one every 4.
  EXPECT_IR(prefetch_panels(parse_prim_func(kPanels)), R"(
@T.prim_func
def f(A: T.Buffer((2048,), "float32"), W: T.Buffer((32768,), "float32"), C: T.Buffer((256,), "float32")):
    for p in T.parallel(4):
        for i in range(4):
            for k in range(512):
                if (i * 512 + k) % 4 == 0:
                    T.prefetch(W[T.min(p + 1, 3) * 8192 + (i * 512 + k) // 4 * 16])
                for j in range(16):
                    C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 512 + k] * W[p * 8192 + k * 16 + j]
)");
}

TEST(PrefetchPanels, TheRowsOfATileShareOnePrefetch) {
  // Two rows of the register tile, each in a loop of its own (as
  // unrolling leaves them), and a panel of 2048 lines over 1024
  // iterations of i and k: 2 lines an iteration, for both rows together.
  EXPECT_IR(prefetch_panels(parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((4096,), "float32"), W: T.Buffer((131072,), "float32"), C: T.Buffer((512,), "float32")):
    for p in T.parallel(4):
        for i in range(2):
            for k in range(512):
                for j in range(64):
                    C[i * 256 + p * 64 + j] = C[i * 256 + p * 64 + j] + A[i * 1024 + k] * W[p * 32768 + k * 64 + j]
                for j1 in range(64):
                    C[i * 256 + p * 64 + j1 + 128] = C[i * 256 + p * 64 + j1 + 128] + A[i * 1024 + k + 512] * W[p * 32768 + k * 64 + j1]
)")),
            R"(
@T.prim_func
def f(A: T.Buffer((4096,), "float32"), W: T.Buffer((131072,), "float32"), C: T.Buffer((512,), "float32")):
    for p in T.parallel(4):
        for i in range(2):
            for k in range(512):
                T.prefetch(W[T.min(p + 1, 3) * 32768 + (i * 512 + k) * 2 * 16])
                T.prefetch(W[T.min(p + 1, 3) * 32768 + ((i * 512 + k) * 2 + 1) * 16])
                for j in range(64):
                    C[i * 256 + p * 64 + j] = C[i * 256 + p * 64 + j] + A[i * 1024 + k] * W[p * 32768 + k * 64 + j]
                for j1 in range(64):
                    C[i * 256 + p * 64 + j1 + 128] = C[i * 256 + p * 64 + j1 + 128] + A[i * 1024 + k + 512] * W[p * 32768 + k * 64 + j1]
)");
}

TEST(PrefetchPanels, AParallelLoopFusedFromTwoMovesByOnePanel) {
  // p fused from 2 groups of 4 panels: (p // 4) * 32768 + (p % 4) * 8192
  // is p * 8192, and the next p's panel follows this one.
  EXPECT_IR(prefetch_panels(parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((2048,), "float32"), W: T.Buffer((65536,), "float32"), C: T.Buffer((512,), "float32")):
    for p in T.parallel(8):
        for i in range(4):
            for k in range(512):
                for j in range(16):
                    C[i * 128 + p * 16 + j] = C[i * 128 + p * 16 + j] + A[i * 512 + k] * W[p // 4 * 32768 + p % 4 * 8192 + k * 16 + j]
)")),
            R"(
@T.prim_func
def f(A: T.Buffer((2048,), "float32"), W: T.Buffer((65536,), "float32"), C: T.Buffer((512,), "float32")):
    for p in T.parallel(8):
        for i in range(4):
            for k in range(512):
                if (i * 512 + k) % 4 == 0:
                    T.prefetch(W[T.min(p + 1, 7) * 8192 + (i * 512 + k) // 4 * 16])
                for j in range(16):
                    C[i * 128 + p * 16 + j] = C[i * 128 + p * 16 + j] + A[i * 512 + k] * W[p // 4 * 32768 + p % 4 * 8192 + k * 16 + j]
)");
}

TEST(PrefetchPanels, AReductionOfSeveralLoopsSpreadsThePanelOverTheInnerOnes) {
  // A convolution's reduction: channel blocks c, kernel columns s,
  // channels k. Its 768 lines over the 2 x 16 iterations of i and c
  // would be 24 an iteration; over i, c and s, 8.
  EXPECT_IR(prefetch_panels(parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((1536,), "float32"), W: T.Buffer((49152,), "float32"), C: T.Buffer((128,), "float32")):
    for p in T.parallel(4):
        for i in range(2):
            for c in range(16):
                for s in range(3):
                    for k in range(16):
                        for j in range(16):
                            C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 768 + c * 48 + s * 16 + k] * W[p * 12288 + c * 768 + s * 256 + k * 16 + j]
)")),
            R"(
@T.prim_func
def f(A: T.Buffer((1536,), "float32"), W: T.Buffer((49152,), "float32"), C: T.Buffer((128,), "float32")):
    for p in T.parallel(4):
        for i in range(2):
            for c in range(16):
                for s in range(3):
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + ((i * 16 + c) * 3 + s) * 8 * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 1) * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 2) * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 3) * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 4) * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 5) * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 6) * 16])
                    T.prefetch(W[T.min(p + 1, 3) * 12288 + (((i * 16 + c) * 3 + s) * 8 + 7) * 16])
                    for k in range(16):
                        for j in range(16):
                            C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 768 + c * 48 + s * 16 + k] * W[p * 12288 + c * 768 + s * 256 + k * 16 + j]
)");
}

TEST(PrefetchPanels, NoPanelReadAgainNoPrefetch) {
  for (const char* text : {
           // Each row tile reads rows of its own: nothing is read again.
           R"(
@T.prim_func
def f(W: T.Buffer((131072,), "float32"), C: T.Buffer((256,), "float32")):
    for p in T.parallel(4):
        for i in range(4):
            for k in range(512):
                for j in range(16):
                    C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + W[p * 32768 + i * 8192 + k * 16 + j]
)",
           // A panel of 4 KiB: the level-1 cache holds it.
           R"(
@T.prim_func
def f(A: T.Buffer((256,), "float32"), W: T.Buffer((4096,), "float32"), C: T.Buffer((256,), "float32")):
    for p in T.parallel(4):
        for i in range(4):
            for k in range(64):
                for j in range(16):
                    C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 64 + k] * W[p * 1024 + k * 16 + j]
)",
           // Columns of an unpacked weight: the next p's columns lie
           // among this p's, 64 floats apart, not a panel further on.
           R"(
@T.prim_func
def f(A: T.Buffer((2048,), "float32"), W: T.Buffer((32768,), "float32"), C: T.Buffer((256,), "float32")):
    for p in T.parallel(4):
        for i in range(4):
            for k in range(512):
                for j in range(16):
                    C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 512 + k] * W[k * 64 + p * 16 + j]
)"}) {
    const PrimFunc f = parse_prim_func(text);
    EXPECT_TRUE(prefetch_panels(f).same_as(f)) << text;
  }
}

}  // namespace
}  // namespace kiln
