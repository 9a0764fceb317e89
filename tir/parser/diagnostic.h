// How the parser reports malformed text: one kiln::Error whose message starts
// with the position, then says what was expected and what was found, worded
// the LLVM way (lower-case, no trailing period):
//
//   line 4, column 12: expected ')' after buffer shape, got 'x'
#pragma once

#include <string>

#include "tir/parser/lexer.h"

namespace kiln::parser {

[[noreturn]] void error_at(int line, int column, const std::string& message);
[[noreturn]] inline void error_at(const Token& t, const std::string& message) {
  error_at(t.line, t.column, message);
}

}  // namespace kiln::parser
