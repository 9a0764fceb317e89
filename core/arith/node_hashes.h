// Structural hashes of expressions, memoised per node, for the rewriter's
// memo of twins (core/arith/rewriter.h; not a public interface).
//
// structural_hash numbers variables in order of first occurrence, so a
// subtree's hash depends on what surrounds it and cannot be reused. These
// hashes take variables and buffers as themselves (as structural_equal's
// FreeVars::kIdentity does), so a node's hash is its own fields' folded
// with its children's. Nodes that bind a variable (Let, Reduce) hash as
// themselves too: the rewriter never takes one for another's twin, so a
// result never carries another subtree's bound variable.
//
// Only subtrees of kMemoSize nodes or more are memoised: a smaller one is
// hashed afresh, which costs less than a memo entry, and is too small for
// the rewriter to look for its twins. A hash does not depend on what the
// analyzer knows, so the memo outlives changes of bindings. It holds each
// node it hashed, so that a freed node's address cannot come back with a
// stale hash.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "core/expr.h"

namespace kiln::arith {

class NodeHashes {
 public:
  static constexpr int64_t kMemoSize = 16;

  struct Hash {
    uint64_t value = 0;
    // Nodes in the subtree, counted as a tree (a shared node once per use),
    // up to about kMemoSize: past it, only that it is large.
    int64_t nodes = 0;
  };
  Hash operator()(const Expr& e);

  struct Entry {
    ObjectRef node;
    Hash hash;
  };

 private:
  std::unordered_map<const Object*, Entry> memo_;
};

}  // namespace kiln::arith
