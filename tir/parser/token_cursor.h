// A position in the token list with the checks every parser rule needs:
// accept a token if it is there, expect one or report what was found.
//
// The list is random-access on purpose. Two spellings of the IR text use a
// name before the text binds it (a function's parameters use the shape
// variables declared in its body; `T.sum(A[k], axis=[T.reduce_axis(k, 8)])`
// uses its axis before the axis list), and a range's stop is read against
// the tokens of its start. The parsers handle these by remembering a
// position and coming back to it, so no rule needs a syntax tree.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tir/parser/lexer.h"

namespace kiln::parser {

class TokenCursor {
 public:
  explicit TokenCursor(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  // The token `ahead` places after the current one (the last, kEnd, beyond it).
  const Token& peek(size_t ahead = 0) const;
  const Token& next();
  size_t pos() const { return pos_; }
  void seek(size_t pos) { pos_ = pos; }
  const Token& at(size_t pos) const { return tokens_[pos < tokens_.size() ? pos : tokens_.size() - 1]; }

  bool at_op(std::string_view op) const { return peek().is_op(op); }
  bool at_name(std::string_view name) const { return peek().is_name(name); }
  bool at(TokenKind k) const { return peek().kind == k; }
  // `key=` inside an argument list (`=` alone; `==` is another token).
  bool at_keyword(std::string_view key) const { return peek().is_name(key) && peek(1).is_op("="); }
  // `T.name`: the functions and statement heads of the text.
  bool at_t(std::string_view name) const;

  bool accept_op(std::string_view op);
  bool accept_name(std::string_view name);
  bool accept_keyword(std::string_view key);

  // Each consumes the token or throws "expected <what> <context>, got <token>".
  const Token& expect_op(std::string_view op, std::string_view context);
  const Token& expect_name(std::string_view name, std::string_view context);
  const Token& expect_identifier(std::string_view context);
  const Token& expect_string(std::string_view context);
  const Token& expect(TokenKind kind, std::string_view what, std::string_view context);
  void expect_keyword(std::string_view key, std::string_view context);
  void expect_t(std::string_view name, std::string_view context);

  [[noreturn]] void fail_expected(std::string_view what, std::string_view context) const;

  // The position just after the bracket that closes the one at `open`.
  size_t after_closing(size_t open) const;
  // The first `op` at bracket depth zero from `from` on, before the enclosing
  // bracket closes or the line ends; npos if there is none.
  size_t find_top_level(size_t from, std::string_view op) const;
  // The position of the first Newline (or the end) from `from` on.
  size_t line_end(size_t from) const;
  // Whether the tokens [a, a_end) appear again at b.
  bool same_tokens(size_t a, size_t a_end, size_t b) const;

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace kiln::parser
