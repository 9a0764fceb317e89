// One hand-built sample of every node kind, shared by the round-trip and
// node-list tests so that a new kind is covered in one place.
#pragma once

#include "tir/stmt.h"

namespace kiln::testing {

// A sample expression of kind k (its kind() is k).
Expr sample_expr(ExprKind k);
// A sample statement of kind k (its kind() is k).
Stmt sample_stmt(StmtKind k);
// C[i, j] += A[i, k] * B[k, j] in block form, with a root block, an init and
// a local scratch buffer: the shape every schedule starts from.
PrimFunc sample_matmul();

}  // namespace kiln::testing
