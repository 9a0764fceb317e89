// Features of a candidate program for the cost model: one fixed-length row
// per buffer store, as in Ansor and MetaSchedule (written anew).
//
// The rows are read from the program in lower_to_loops form
// (tir/transform/lower.h): flat buffers, loops still carrying the kinds and
// annotations the schedule gave them. Every count is log-scaled
// (log2(1 + x)); flags and one-hots are 0 or 1. The layout, version 2:
//
//   [0, 11)    arithmetic, per store times its executions: float add/sub,
//              mul, multiply-add pairs, div, math calls, compare/min/max/
//              select; int add/sub, mul, div/mod; boolean ops; casts
//   [11, 29)   loops: depth, executions, innermost extent; for parallel,
//              vectorized and unrolled loops each: how many, the product of
//              their extents, the innermost one's extent, and how many loops
//              lie between the store and the outermost one; the auto-unroll
//              step annotated around the store; the innermost loop's kind
//              is vectorized; the store is guarded by a condition
//   [29, 104)  five buffer slots of 15, for the buffers the store touches,
//              most bytes first (empty slots are zero): read, write, local;
//              bytes, unique bytes, cache lines, unique cache lines; stride
//              of the innermost loop and of the innermost loop that moves
//              the access; reuse kind (loop-carried, repeated in the
//              store) and for loop-carried reuse its distance in iterations
//              and in bytes and its count; bytes per unique byte
//   [104, 114) arithmetic intensity (float ops per unique byte) seen from
//              each loop level, innermost to outermost, sampled at 10
//              evenly spaced levels
//   [114, 117) allocation of the stored buffer: bytes, local scope, how many
//              allocations enclose the store
//   [117, 120) program: stores, outermost parallel extent, float ops
//   [120, 128) GPU (zero on a CPU): blocks, threads per block, virtual
//              threads, threads in all around the store; the store writes
//              shared memory; its reads of shared memory; the program's
//              shared memory; threads per block a whole number of warps
//
// A change to this layout bumps kFeatureVersion: records and saved models
// carry the version they were made with.
#pragma once

#include "costmodel/cost_model.h"
#include "tir/stmt.h"

namespace kiln::costmodel {

inline constexpr int kFeatureVersion = 2;
inline constexpr int kFeatureLength = 128;

// One row per BufferStore of `loops`, a function in lower_to_loops form.
ProgramFeatures extract_features(const PrimFunc& loops);

}  // namespace kiln::costmodel
