#include "tir/parser/lexer.h"

#include "core/printer.h"
#include "tir/parser/diagnostic.h"

namespace kiln::parser {

std::string Token::describe() const {
  switch (kind) {
    case TokenKind::kString: {
      std::string out = "'";  // built in place: GCC 12 warns on "'" + ... + "'" (-Wrestrict)
      out += quote_string(text);
      out += '\'';
      return out;
    }
    case TokenKind::kNewline: return "end of line";
    case TokenKind::kIndent: return "indentation";
    case TokenKind::kDedent: return "end of block";
    case TokenKind::kEnd: return "end of input";
    default: return "'" + text + "'";
  }
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : src_(text) {}

  std::vector<Token> run() {
    while (pos_ < src_.size()) {
      if (at_line_start_ && depth_ == 0) {
        if (!start_line()) continue;  // blank or comment-only line
      }
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        advance();
      } else if (c == '#') {
        skip_to_line_end();
      } else if (c == '\n') {
        if (depth_ == 0) {
          emit(TokenKind::kNewline, "", line_, column_);
          at_line_start_ = true;
        }
        advance();
      } else if (is_digit(c)) {
        number();
      } else if (is_name_start(c)) {
        name();
      } else if (c == '"' || c == '\'') {
        string();
      } else {
        op();
      }
    }
    if (!out_.empty() && out_.back().kind != TokenKind::kNewline && depth_ == 0)
      emit(TokenKind::kNewline, "", line_, column_);
    // Close every open level; the base level has no Indent of its own.
    for (size_t i = 1; i < indents_.size(); ++i) emit(TokenKind::kDedent, "", line_, column_);
    emit(TokenKind::kEnd, "", line_, column_);
    return std::move(out_);
  }

 private:
  void advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  void emit(TokenKind k, std::string text, int line, int column) {
    out_.push_back(Token{k, std::move(text), line, column});
  }

  void skip_to_line_end() {
    while (pos_ < src_.size() && src_[pos_] != '\n') advance();
  }

  // Measures the indentation of a logical line and emits Indent/Dedent
  // tokens. Returns false for a blank or comment-only line, which is skipped
  // whole (its newline included).
  bool start_line() {
    int width = 0;
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\r')) {
      if (src_[pos_] == '\t') error_at(line_, column_, "tab character in indentation; indent with spaces");
      if (src_[pos_] == ' ') ++width;
      advance();
    }
    if (pos_ >= src_.size()) return false;
    if (src_[pos_] == '#') skip_to_line_end();
    if (pos_ < src_.size() && src_[pos_] == '\n') {
      advance();
      return false;
    }
    if (pos_ >= src_.size()) return false;
    at_line_start_ = false;
    if (indents_.empty()) {
      indents_.push_back(width);
    } else if (width > indents_.back()) {
      indents_.push_back(width);
      emit(TokenKind::kIndent, "", line_, column_);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        if (indents_.empty() || width > indents_.back())
          error_at(line_, column_, "unindent does not match any outer indentation level");
        emit(TokenKind::kDedent, "", line_, column_);
      }
    }
    return true;
  }

  void number() {
    int line = line_, column = column_;
    size_t begin = pos_;
    bool is_float = false;
    while (pos_ < src_.size() && is_digit(src_[pos_])) advance();
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' && is_digit(src_[pos_ + 1])) {
      is_float = true;
      advance();
      while (pos_ < src_.size() && is_digit(src_[pos_])) advance();
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < src_.size() && is_digit(src_[p])) {
        is_float = true;
        while (pos_ < p) advance();
        while (pos_ < src_.size() && is_digit(src_[pos_])) advance();
      }
    }
    emit(is_float ? TokenKind::kFloat : TokenKind::kInt, std::string(src_.substr(begin, pos_ - begin)), line, column);
  }

  void name() {
    int line = line_, column = column_;
    size_t begin = pos_;
    while (pos_ < src_.size() && is_name_char(src_[pos_])) advance();
    emit(TokenKind::kName, std::string(src_.substr(begin, pos_ - begin)), line, column);
  }

  // A quoted string with the escapes quote_string writes (core/printer.h).
  void string() {
    int line = line_, column = column_;
    char quote = src_[pos_];
    advance();
    std::string value;
    while (true) {
      if (pos_ >= src_.size() || src_[pos_] == '\n') error_at(line, column, "unterminated string");
      char c = src_[pos_];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        advance();
        continue;
      }
      int esc_line = line_, esc_column = column_;
      advance();
      char e = pos_ < src_.size() ? src_[pos_] : '\0';
      switch (e) {
        case '"': value += '"'; break;
        case '\'': value += '\''; break;
        case '\\': value += '\\'; break;
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case 'x': {
          int hi = pos_ + 1 < src_.size() ? hex_value(src_[pos_ + 1]) : -1;
          int lo = pos_ + 2 < src_.size() ? hex_value(src_[pos_ + 2]) : -1;
          if (hi < 0 || lo < 0) error_at(esc_line, esc_column, "expected two hex digits after '\\x'");
          value += static_cast<char>(hi * 16 + lo);
          advance();
          advance();
          break;
        }
        default: error_at(esc_line, esc_column, "unknown escape sequence in string");
      }
      advance();
    }
    advance();
    emit(TokenKind::kString, std::move(value), line, column);
  }

  void op() {
    static constexpr std::string_view kTwo[] = {"//", "==", "!=", "<=", ">=", "->"};
    static constexpr std::string_view kOne = "()[]{},:.=@+-*/%<>";
    int line = line_, column = column_;
    for (std::string_view t : kTwo) {
      if (src_.substr(pos_, 2) == t) {
        advance();
        advance();
        emit(TokenKind::kOp, std::string(t), line, column);
        return;
      }
    }
    char c = src_[pos_];
    if (kOne.find(c) == std::string_view::npos)
      error_at(line, column, std::string("unexpected character '") + c + "'");
    if (c == '(' || c == '[' || c == '{') ++depth_;
    if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
    advance();
    emit(TokenKind::kOp, std::string(1, c), line, column);
  }

  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1, column_ = 1;
  int depth_ = 0;  // open brackets: line breaks inside them are joined
  bool at_line_start_ = true;
  std::vector<int> indents_;  // widths of the open levels, the base first
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text) { return Lexer(text).run(); }

}  // namespace kiln::parser
