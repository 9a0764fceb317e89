// Structural equality and hashing of IR, for any node type.
//
// Two programs are structurally equal when they have the same shape of nodes
// and field values, where variables and buffers (nodes with identity) are
// matched one-to-one in order of first occurrence: renaming never matters,
// but using one variable where the other program uses two does.
//
//   x + y  ==  a + b      (x<->a, y<->b)
//   x + x  !=  a + b      (x is already a, so x cannot be b)
//
// The hash agrees: structurally equal programs hash equal.
#pragma once

#include <cstdint>

#include "core/object.h"

namespace kiln {

bool structural_equal(const ObjectRef& a, const ObjectRef& b);
uint64_t structural_hash(const ObjectRef& a);

}  // namespace kiln
