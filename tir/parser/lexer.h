// The tokenizer of the IR text (docs/ir_text.md): Python's lexical rules, cut
// down to what the printer writes. Indentation becomes explicit Indent and
// Dedent tokens, so the statement parser reads suites the way it reads
// brackets and never looks at columns.
//
//   for i in range(4):          Name(for) Name(i) Name(in) Name(range) Op(() Int(4)
//       A[i] = 0                Op()) Op(:) Newline Indent Name(A) Op([) ...
//
// As in Python, line breaks inside brackets are joined, blank lines and
// `# comments` are skipped, and a dedent must return to an enclosing level.
// Unlike Python, the first line may be indented: its indentation is the base
// level, so tests can indent text inside a C++ raw string.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln::parser {

enum class TokenKind {
  kName,    // identifiers and keywords (`for`, `and`, `True` ...)
  kInt,     // 42
  kFloat,   // 1.5, 1e+20
  kString,  // "text"; Token::text holds the decoded value
  kOp,      // punctuation and operators: ( ) [ ] { } , : . = @ + - * / // % == != < <= > >=
  kNewline,
  kIndent,
  kDedent,
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  int line = 1;    // 1-based
  int column = 1;  // 1-based

  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool is_op(std::string_view t) const { return is(TokenKind::kOp, t); }
  bool is_name(std::string_view t) const { return is(TokenKind::kName, t); }
  // How an error message names the token: `'x'`, `end of line` ...
  std::string describe() const;
};

// Splits `text` into tokens ending with kEnd. Throws kiln::Error at the first
// character that cannot start a token, an unterminated string, a tab in
// indentation or a dedent to no enclosing level.
std::vector<Token> tokenize(std::string_view text);

}  // namespace kiln::parser
