// Reads expressions and the expression-like pieces that statements share
// (ranges, buffer declarations, annotation dicts) from a token cursor, with
// the names of one NameTable.
//
// Expressions follow Python's grammar and precedence, which is what the
// printer parenthesises for (core/printer.cpp):
//
//   or_test    := and_test ('or' and_test)*
//   and_test   := not_test ('and' not_test)*
//   not_test   := 'not' not_test | comparison
//   comparison := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?    never chained
//   sum        := term (('+' | '-') term)*
//   term       := factor (('*' | '/' | '//' | '%') factor)*
//   factor     := '-' NUMBER | atom
//   atom       := NAME | NAME '[' indices ']' | INT | STRING | True | False
//               | '(' or_test ')' | 'T' '.' NAME '(' arguments ')'
//
// Nodes are built as written, never folded or retyped: `2 + 3` stays an Add,
// and operands of different types are an error rather than a cast, because
// the printer states every type and reading must give back the same tree.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/expr.h"
#include "tir/parser/names.h"
#include "tir/parser/token_cursor.h"
#include "tir/stmt.h"

namespace kiln::parser {

class ExprParser {
 public:
  ExprParser(TokenCursor& in, NameTable& names) : in_(in), names_(names) {}

  Expr parse() { return parse_or(); }

  // --- Ranges (range_parser.cpp) -----------------------------------------
  // Python's [start, stop): `start` was read from the tokens [start_begin,
  // start_end) and the separator after it; reads the stop and returns the
  // extent, by the rules of docs/ir_text.md (Ranges).
  Expr parse_extent_after(const Expr& start, size_t start_begin, size_t start_end);
  // An axis domain: `64`, or `(2, 66)`.
  Range parse_domain();
  // `A[vi, 0:16]`: a buffer region of T.reads and T.writes.
  BufferRegion parse_region();

  // --- Declarations (decl_parser.cpp) ------------------------------------
  // The arguments of T.Buffer, T.alloc_buffer and T.allocate after the '(':
  // `(64, 32), "float32", scope="local", align_axis=0, align_factor=16, align_offset=1`.
  // The buffer is named `name`; the closing ')' is left to the caller.
  Buffer parse_buffer_args(const std::string& name);
  // `{"key": value, ...}`.
  Annotations parse_annotations();
  // The type named by a string argument (`"float32x4"`).
  DataType parse_dtype_string(std::string_view context);
  // `, dtype="int64"` or nothing: the type of a variable bound over `extent`.
  DataType parse_bound_dtype(const Expr& extent);
  // A non-negative integer literal (lane counts, alignment).
  int64_t parse_count(std::string_view context);
  // An integer-valued expression (extents, indices, bounds).
  Expr parse_index(std::string_view what);
  // The indices of `A[i, j]` after the '[' (`()` for none), and the ']'.
  std::vector<Expr> parse_indices(const std::string& buffer);

 private:
  Expr parse_or();
  Expr parse_and();
  Expr parse_not();
  Expr parse_comparison();
  Expr parse_sum();
  Expr parse_term();
  Expr parse_factor();
  Expr parse_atom();
  Expr parse_name();
  Expr binary(ExprKind kind, const Token& op, Expr a, Expr b);

  // --- `T.` functions (t_calls.cpp) --------------------------------------
  Expr parse_t_call();
  Expr parse_immediate(const Token& fn, DataType t);
  Expr parse_select(const Token& fn);
  Expr parse_cast(const Token& fn);
  Expr parse_ramp(const Token& fn);
  Expr parse_broadcast(const Token& fn);
  Expr parse_let(const Token& fn);
  Expr parse_free_var(const Token& fn);
  Expr parse_binary_call(const Token& fn, ExprKind kind);
  Expr parse_intrinsic(const Token& fn, Intrinsic op);
  Expr parse_reduce(const Token& fn, ReduceKind kind);
  IterVar parse_reduce_axis();
  bool at_reduce_form() const;
  // Reads the arguments of T.<fn> after the '(' and the ')' itself.
  std::vector<Expr> parse_args(const Token& fn, size_t count);

  TokenCursor& in_;
  NameTable& names_;
};

}  // namespace kiln::parser
