// Finding blocks and loops in a block-form function, and putting a rewritten
// statement back in its place.
//
// Primitives resolve their handles here: a block by its name, a loop by its
// variable. Both searches return the path from the function body down to the
// statement, since most legality checks are about what lies around it (the
// loops between a block and its enclosing block, the single-child chain
// between two loops).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tir/replace_stmt.h"  // what is found here is put back with replace_stmt
#include "tir/stmt.h"

namespace kiln {

struct Located {
  Stmt stmt;                   // the BlockRealize or the For
  std::vector<Stmt> ancestors;  // outermost first, `stmt` excluded
};

std::optional<Located> locate_block(const Stmt& root, const std::string& name);
std::optional<Located> locate_loop(const Stmt& root, const Var& loop_var);

const BlockNode* block_of(const Stmt& realize);

// The loops between the nearest enclosing block (or the root) and the
// statement at `loc`, outermost first.
std::vector<Stmt> enclosing_loops(const Located& loc);

// The BlockRealizes inside `s` that are not inside another block, in order.
std::vector<Stmt> child_block_realizes(const Stmt& s);

// Names of all blocks in `root`.
std::vector<std::string> block_names(const Stmt& root);

}  // namespace kiln
