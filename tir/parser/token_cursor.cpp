#include "tir/parser/token_cursor.h"

#include "tir/parser/diagnostic.h"

namespace kiln::parser {

namespace {
bool is_open(const Token& t) { return t.is_op("(") || t.is_op("[") || t.is_op("{"); }
bool is_close(const Token& t) { return t.is_op(")") || t.is_op("]") || t.is_op("}"); }
}  // namespace

const Token& TokenCursor::peek(size_t ahead) const { return at(pos_ + ahead); }

const Token& TokenCursor::next() {
  const Token& t = peek();
  if (pos_ < tokens_.size() - 1) ++pos_;
  return t;
}

bool TokenCursor::at_t(std::string_view name) const {
  return peek().is_name("T") && peek(1).is_op(".") && peek(2).is_name(name);
}

bool TokenCursor::accept_op(std::string_view op) {
  if (!at_op(op)) return false;
  next();
  return true;
}

bool TokenCursor::accept_name(std::string_view name) {
  if (!at_name(name)) return false;
  next();
  return true;
}

bool TokenCursor::accept_keyword(std::string_view key) {
  if (!at_keyword(key)) return false;
  next();
  next();
  return true;
}

void TokenCursor::fail_expected(std::string_view what, std::string_view context) const {
  std::string msg = "expected " + std::string(what);
  if (!context.empty()) msg += " " + std::string(context);
  error_at(peek(), msg + ", got " + peek().describe());
}

const Token& TokenCursor::expect_op(std::string_view op, std::string_view context) {
  if (!at_op(op)) fail_expected("'" + std::string(op) + "'", context);
  return next();
}

const Token& TokenCursor::expect_name(std::string_view name, std::string_view context) {
  if (!at_name(name)) fail_expected("'" + std::string(name) + "'", context);
  return next();
}

const Token& TokenCursor::expect_identifier(std::string_view context) {
  return expect(TokenKind::kName, "a name", context);
}

const Token& TokenCursor::expect_string(std::string_view context) {
  return expect(TokenKind::kString, "a string", context);
}

const Token& TokenCursor::expect(TokenKind kind, std::string_view what, std::string_view context) {
  if (!at(kind)) fail_expected(what, context);
  return next();
}

void TokenCursor::expect_keyword(std::string_view key, std::string_view context) {
  if (!at_keyword(key)) fail_expected("'" + std::string(key) + "='", context);
  next();
  next();
}

void TokenCursor::expect_t(std::string_view name, std::string_view context) {
  if (!at_t(name)) fail_expected("'T." + std::string(name) + "'", context);
  next();
  next();
  next();
}

size_t TokenCursor::after_closing(size_t open) const {
  int depth = 0;
  for (size_t p = open; p < tokens_.size(); ++p) {
    const Token& t = tokens_[p];
    if (is_open(t)) ++depth;
    if (is_close(t) && --depth == 0) return p + 1;
    if (t.kind == TokenKind::kEnd) break;
  }
  error_at(at(open), "unclosed '" + at(open).text + "'");
}

size_t TokenCursor::find_top_level(size_t from, std::string_view op) const {
  int depth = 0;
  for (size_t p = from; p < tokens_.size(); ++p) {
    const Token& t = tokens_[p];
    if (depth == 0 && t.is_op(op)) return p;
    if (is_open(t)) ++depth;
    if (is_close(t) && --depth < 0) break;
    if (t.kind == TokenKind::kNewline || t.kind == TokenKind::kEnd) break;
  }
  return std::string_view::npos;
}

size_t TokenCursor::line_end(size_t from) const {
  size_t p = from;
  while (p + 1 < tokens_.size() && tokens_[p].kind != TokenKind::kNewline) ++p;
  return p;
}

bool TokenCursor::same_tokens(size_t a, size_t a_end, size_t b) const {
  for (size_t i = 0; a + i < a_end; ++i) {
    const Token& x = at(a + i);
    const Token& y = at(b + i);
    if (x.kind != y.kind || x.text != y.text) return false;
  }
  return true;
}

}  // namespace kiln::parser
