// Reading the IR text back into IR: the inverse of the printers of
// core/printer.h and tir/printer.h. Printing then parsing gives a
// structurally equal program (core/structural.h), and printing that again
// gives the same text, so tests can state their input and expected IR as
// text (docs/ir_text.md is the grammar, "Parsing" the contract):
//
//   PrimFunc f = parse_prim_func(R"(
//     @T.prim_func
//     def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
//         for i in range(4):
//             B[i] = A[i] + T.float32(1)
//   )");
//
// The text may be indented as a whole. Malformed text throws kiln::Error
// naming the place and the problem:
//
//   line 7, column 9: undefined name 'vk'
//   line 4, column 12: expected ')' after buffer shape, got 'x'
#pragma once

#include <string_view>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

PrimFunc parse_prim_func(std::string_view text);
// `@I.ir_module class Module:` with its functions, filed under their `def`
// names.
IRModule parse_module(std::string_view text);

// What a lone statement or expression may use without binding it: each Var
// and Buffer under its name (the text of to_string(stmt) names a free buffer
// but does not declare it). Variables the text writes as T.Var("n", "int64")
// need no entry.
struct ParseEnv {
  std::vector<Var> vars;
  std::vector<Buffer> buffers;
};

Stmt parse_stmt(std::string_view text, const ParseEnv& env = {});
Expr parse_expr(std::string_view text, const ParseEnv& env = {});

}  // namespace kiln
