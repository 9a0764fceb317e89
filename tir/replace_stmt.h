// Putting a rewritten statement back in place of the original one.
//
// Schedule primitives and lowering steps rebuild one subtree of a function
// (a loop nest, a block, an allocation's scope) and need the function with
// that subtree swapped in; nodes are immutable, so every ancestor is rebuilt.
#pragma once

#include "tir/stmt.h"

namespace kiln {

// `root` with the node `target` (by identity) replaced by `replacement`;
// sequences stay flat (a sequence replacing an element is spliced in, a
// no-op replacing one is dropped).
Stmt replace_stmt(const Stmt& root, const Stmt& target, const Stmt& replacement);

}  // namespace kiln
