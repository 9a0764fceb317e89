// The text form of statements, functions and modules: TVMScript-like, one
// statement kind per spelling, so that the text can be parsed back
// (docs/ir_text.md is the grammar). Expressions print as in core/printer.h,
// in the same naming context, so every variable and buffer of one function
// has one unique name.
//
//   @T.prim_func
//   def matmul(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 16), "float32"),
//              C: T.Buffer((64, 16), "float32")):
//       for i, j, k in T.grid(64, 16, 32):
//           with T.block("C"):
//               vi = T.axis.spatial(64, i)
//               vj = T.axis.spatial(16, j)
//               vk = T.axis.reduce(32, k)
//               T.reads(A[vi, vk], B[vk, vj])
//               T.writes(C[vi, vj])
//               with T.init():
//                   C[vi, vj] = T.float32(0)
//               C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
//
// (The signature is printed on one line.) Statements that bind a name for
// the rest of a suite (LetStmt, Allocate) are the one irregular spot: as the
// last statement of a suite they print as a declaration line followed by
// their body, elsewhere as a `with` statement, so that a reader never has to
// guess where their body ends.
#pragma once

#include <iosfwd>
#include <string>

#include "core/printer.h"
#include "tir/stmt.h"

namespace kiln {

std::string to_string(const Stmt& s);
// The statement's first line of text, unindented (`for k0 in range(64):`):
// how messages name a statement.
std::string first_line(const Stmt& s);
std::string to_string(const PrimFunc& f);
std::string to_string(const IRModule& m);
std::ostream& operator<<(std::ostream& os, const Stmt& s);
std::ostream& operator<<(std::ostream& os, const PrimFunc& f);
std::ostream& operator<<(std::ostream& os, const IRModule& m);

// Prints a statement in a caller's context at an indentation level (4 spaces
// each), ending with a newline: for tools that print statements next to
// expressions and want one set of names.
void print_stmt(std::ostream& os, PrintContext& ctx, const Stmt& s, int indent = 0);

}  // namespace kiln
