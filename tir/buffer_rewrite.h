// Rewriting every access of one buffer as an access of another.
//
// The one mutator behind several changes of a buffer: renaming it (a cache
// takes its place in a block), re-declaring it with another scope or
// alignment (set_scope, storage_align), moving its origin (compact_buffers
// shifts indices by the region's start) and re-indexing it
// (transform_layout maps indices through an index map). Loads and stores of
// `from` become loads and stores of `to`, with their indices passed through
// `indices` when it is set. Block read/write regions follow: renamed when
// the indices stay, recomputed from the block's body when they change.
#pragma once

#include <functional>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

struct BufferRewrite {
  Buffer from, to;
  // The new indices of an access, from the old ones; unset: the same.
  std::function<std::vector<Expr>(const std::vector<Expr>&)> indices;
  // Also put `to` in place of `from` in the allocations of blocks.
  bool allocations = false;
};

Stmt rewrite_buffer(const Stmt& s, const BufferRewrite& r);

}  // namespace kiln
