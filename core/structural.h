// Structural equality and hashing of IR, for any node type.
//
// Two programs are structurally equal when they have the same shape of nodes
// and field values. Variables and buffers (nodes with identity) that a
// program binds (a loop's variable, a block's iter vars and allocations, a
// function's parameters, a let: the fields marked KILN_DEFINES) are matched
// one-to-one where they are bound, so renaming never matters:
//
//   for i in 0..4: A[i] = 0   ==  for j in 0..4: A[j] = 0
//
// A variable the compared IR uses without binding it is free, and a free
// variable equals only itself: the same object on both sides.
//
//   C[vi, vj]  ==  C[vi, vj]
//   C[vj, vi]  !=  C[vi, vj]     (vi and vj are free here: each is itself)
//   x + x      !=  x + y
//
// FreeVars::kMap matches free variables one-to-one as well, for fragments
// built apart from each other (an expression parsed or read back from JSON
// beside the one it was written from): there `x + 1 == y + 1`.
//
// Floating-point immediates compare bit for bit (0.0 and -0.0 differ, a NaN
// equals itself). The hash agrees: structurally equal programs hash equal;
// it names workloads in databases (tir/analysis/workload_key.h), so it must
// not change.
#pragma once

#include <cstdint>

#include "core/object.h"

namespace kiln {

enum class FreeVars : uint8_t {
  kIdentity,  // a free variable equals only itself
  kMap,       // free variables match one-to-one, like bound ones
};

bool structural_equal(const ObjectRef& a, const ObjectRef& b, FreeVars free = FreeVars::kIdentity);
uint64_t structural_hash(const ObjectRef& a);

}  // namespace kiln
