// Prefetching the next panel: while a loop nest works through one panel of
// a buffer it reads many times over, it asks the cache for the next.
//
// A tiled dense product reads its packed weights a panel at a time: for
// each column panel (the outer loop P), every row tile (the loop I) runs
// the whole reduction over the same panel, so the panel's first row tile
// brings it from memory and the others find it in the level-2 cache. In a
// model, whose weights are far larger than the caches, that first pass
// waits on memory: one 128 x 768 x 3072 product with a 6 x 64 register
// tile over weights that the caches no longer held ran at 268-279
// GFLOP/s, and at 320-336 with the next panel prefetched over the row
// tiles of the current one (a hand-written kernel in the same shape,
// Xeon with AVX-512, 2 threads; 316-321 with the weights in the caches).
// The hardware prefetchers do not cross the page boundaries of a 192 KiB
// panel soon enough.
//
// The pass finds, in the lowered function, each load of a buffer X in a
// nest of loops P ... I ... R where
//  - X's index (a linear form in the loop variables) depends on P but not
//    on I, whose extent is at least 2: the iterations of I read again what
//    one iteration of P reads, its panel;
//  - that panel, the span of the index over the loops inside P, is
//    between kMinPanelBytes and kMaxPanelBytes, and the next iteration of
//    P moves the index by at least half of it (the panels are mostly
//    disjoint, so the next one is new data);
//  - R, the loop right inside I (the reduction of a tiled product), runs
//    with I at least 1/16 as many iterations as the panel has cache lines;
//    where it runs fewer, R is the serial loop inside it, and so on down
//    (a convolution's reduction is three loops: input channel blocks,
//    kernel columns, channels within a block).
// A parallel P fused from two loops indexes X at (P // k) * (k * c) +
// (P % k) * c, which is P * c, and is taken as such.
// At the top of R's body it then prefetches the next iteration's panel
// (P + 1, or P itself on its last iteration), spread over the iterations
// of I and R: one line every s iterations (s a power of two, so that the
// test is a mask), or a few lines every iteration. All the loads of one
// buffer in one loop R (the rows of a register tile) share the
// prefetches; R is never a loop of one row, whose copies would each
// prefetch the panel again (that slowed BERT's 768-wide products by 13%). A parallel P runs in contiguous chunks
// (targets/codegen/llvm/codegen_parallel.cpp), so P + 1 is the same
// thread's next panel except at a chunk's end.
//
//   for p in T.parallel(48):                for p in T.parallel(48):
//     for i in range(22):                     for i in range(22):
//       for k in range(768):        ->          for k in range(768):
//         C[...] += A[...] * W[p * 49152          if (i * 768 + k) % 4 == 0 and i * 768 + k < 12288:
//                              + k * 64]            T.prefetch(W[T.min(p + 1, 47) * 49152 + (i * 768 + k) // 4 * 16])
//                                                 C[...] += A[...] * W[p * 49152 + k * 64]
//
// CPU only: runs last in lower(), after unswitching, on loops that are
// final. The interpreter takes a prefetch as a no-op.
#pragma once

#include "tir/stmt.h"

namespace kiln {

PrimFunc prefetch_panels(const PrimFunc& f);

}  // namespace kiln
