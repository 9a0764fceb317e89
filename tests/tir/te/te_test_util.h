// Finding blocks and loops in create_prim_func results.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tir/functor.h"
#include "tir/stmt.h"

namespace kiln::test {

// The BlockRealize of the block named `name`; fails the test if there is none.
inline const BlockRealizeNode* find_realize(const PrimFunc& f, const std::string& name) {
  const BlockRealizeNode* found = nullptr;
  post_order_visit(f.body(), [&](const Stmt& s) {
    if (const auto* r = s.as<BlockRealizeNode>()) {
      if (r->block.as<BlockNode>()->name == name) found = r;
    }
  });
  EXPECT_NE(found, nullptr) << "no block " << name;
  return found;
}

inline const BlockNode* find_block(const PrimFunc& f, const std::string& name) {
  const BlockRealizeNode* r = find_realize(f, name);
  return r ? r->block.as<BlockNode>() : nullptr;
}

inline std::vector<std::string> block_names(const PrimFunc& f) {
  std::vector<std::string> names;
  // Pre-order would list root first; post-order lists it last, so drop it.
  post_order_visit(f.body(), [&](const Stmt& s) {
    if (const auto* b = s.as<BlockNode>()) names.push_back(b->name);
  });
  return names;
}

inline const BlockNode* root_block(const PrimFunc& f) {
  const auto* r = f.body().as<BlockRealizeNode>();
  EXPECT_NE(r, nullptr) << "body is not a BlockRealize";
  return r ? r->block.as<BlockNode>() : nullptr;
}

// A region dimension that is exactly [min, min + extent) with constants.
inline bool const_range(const Range& r, int64_t min, int64_t extent) {
  return is_const_int(r->min, min) && is_const_int(r->extent, extent);
}

// A region dimension that is the single element `v`.
inline bool point_range(const Range& r, const Var& v) { return r->min.same_as(v) && is_const_int(r->extent, 1); }

}  // namespace kiln::test
