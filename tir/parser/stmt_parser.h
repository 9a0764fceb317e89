// Reads statements: suites delimited by Indent/Dedent tokens, each statement
// kind by its first tokens (docs/ir_text.md, Statements):
//
//   A[i] = v            BufferStore          for ... in ...:      For (loop_parser.cpp)
//   T.evaluate(v)       Evaluate             with T.block(...):   Block (block_parser.cpp)
//   if c: / else:       IfThenElse           with T.LetStmt(v) as t: / t: T.int32 = v
//   pass                an empty suite       with T.allocate(...) as B: / B = T.allocate(...)
//
// The declaration lines `t: T.int32 = v` and `B = T.allocate(...)` take the
// rest of their suite as their body (the tail rule), so a suite reader stops
// at the first one.
#pragma once

#include <string_view>
#include <vector>

#include "tir/parser/expr_parser.h"
#include "tir/stmt.h"

namespace kiln::parser {

class StmtParser {
 public:
  StmtParser(TokenCursor& in, NameTable& names) : in_(in), names_(names), exprs_(in, names) {}

  // The statements from here to the end of the current suite (a Dedent or
  // the end of input, left unread), as one statement.
  Stmt parse_suite_rest();
  // ':' Newline Indent suite Dedent: the body of `for`, `if`, `with` ...
  Stmt parse_body(std::string_view after);
  // The Newline that ends a simple statement.
  void end_line(std::string_view after);

  ExprParser& exprs() { return exprs_; }

 private:
  Stmt parse_statement();
  Stmt parse_store();
  Stmt parse_evaluate();
  Stmt parse_barrier();
  Stmt parse_prefetch();
  Stmt parse_if();
  Stmt parse_with();
  Stmt parse_let_decl();
  Stmt parse_with_let();
  Stmt parse_allocate_decl();
  Stmt parse_with_allocate();
  [[noreturn]] void misplaced_t_statement();

  // loop_parser.cpp
  Stmt parse_for();

  // block_parser.cpp
  Stmt parse_block();
  IterVar parse_axis(bool realized, std::vector<Expr>& values);

  TokenCursor& in_;
  NameTable& names_;
  ExprParser exprs_;
};

// A suite's statements as one: the only one, or a SeqStmt (empty for `pass`).
Stmt make_suite(std::vector<Stmt> stmts);

}  // namespace kiln::parser
