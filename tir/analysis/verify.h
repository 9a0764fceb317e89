// Well-formedness of PrimFuncs: the invariants every pass and schedule
// primitive must keep, checked after each one in tests.
//
// verify() holds the block form (and any PrimFunc) to these rules:
//  - every Var used is defined: by a parameter buffer's shape, a loop, a
//    let, or a block's iter vars; and none is defined twice. The same binding
//    node reached twice through a shared subtree is one definition;
//  - a block sees only its own iter vars, lets, shape variables and what it
//    defines itself: the loops around it and the iter vars of enclosing blocks
//    reach it only through its BlockRealize's iter_values;
//  - a BlockRealize has one iter value per iter var; a Block without a
//    realize has no iter vars;
//  - every expression is well typed (core/expr_type.h): operands of one
//    type, boolean conditions, integer indices, ...;
//  - no Reduce (it belongs to compute definitions only);
//  - every load, store and block region names a buffer that is a parameter,
//    an enclosing Allocate's, or in an enclosing block's alloc_buffers, with
//    one index (or range) per dimension; a store's value has the buffer's
//    element type and as many lanes as its indices;
//  - loop bounds are integers; thread-bound loops name their thread.
//
// verify_lowered() adds the contract of docs/lowered_ir.md: no blocks, every
// buffer one-dimensional and accessed with one int32/int64 index, no
// vectorized loops, no parallel loop inside another. Lowering copies code
// (unrolling), so there a variable may be bound again in a sibling copy; it
// still may not be rebound inside its own scope.
#pragma once

#include <optional>
#include <string>

#include "tir/stmt.h"

namespace kiln {

// The first problem found, worded for the user, or nullopt if f is valid.
std::optional<std::string> verify_error(const PrimFunc& f);
// Throws kiln::Error with verify_error's message.
void verify(const PrimFunc& f);

std::optional<std::string> verify_lowered_error(const PrimFunc& f);
void verify_lowered(const PrimFunc& f);

}  // namespace kiln
