// Functions, modules and the public entry points (tir/parser/parser.h).
//
//   @T.prim_func(name="my.kernel")           the name, when it is not the def's
//   def my_kernel(A: T.Buffer((n,), "float32")):
//       T.func_attr({"global_symbol": "f"})   attrs
//       n = T.int32()                         free variables
//       W = T.Buffer((4,), "float32")         free buffers
//       ...body...
//
// The parameters use the free variables that the body declares below them,
// so the signature is skipped at first and read once those are bound; the
// attrs line, which may use them too, is read after them as well.
#include "tir/parser/parser.h"

#include <optional>

#include "tir/parser/diagnostic.h"
#include "tir/parser/literals.h"
#include "tir/parser/stmt_parser.h"

namespace kiln {
namespace parser {
namespace {

struct ParsedFunc {
  std::string key;  // the module key: the def name, or the decorator's key=
  PrimFunc func;
};

struct Decorator {
  std::optional<std::string> name, key;
};

class FuncParser {
 public:
  FuncParser(TokenCursor& in, bool in_module) : in_(in), in_module_(in_module), stmts_(in, names_) {}

  ParsedFunc parse() {
    Decorator decorator = parse_decorator();
    in_.expect_name("def", "after the decorator");
    const Token& def = in_.expect_identifier("as the function name");
    std::vector<Param> params = skip_params();
    in_.expect_op(":", "after the parameters");
    stmts_.end_line("after ':'");
    in_.expect(TokenKind::kIndent, "an indented block", "after the function signature");

    size_t attrs = std::string_view::npos;
    if (in_.at_t("func_attr")) {
      attrs = in_.pos();
      in_.seek(in_.line_end(in_.pos()) + 1);
    }
    while (at_free_var()) parse_free_var();
    size_t body = in_.pos();
    std::vector<Buffer> buffers;
    for (const Param& p : params) {
      in_.seek(p.args);
      Buffer b = stmts_.exprs().parse_buffer_args(p.name->text);
      in_.expect_op(")", "after the declaration of parameter '" + p.name->text + "'");
      buffers.push_back(names_.bind_buffer(*p.name, b));
    }
    in_.seek(body);
    while (at_free_buffer()) parse_free_buffer();
    Annotations attr_map;
    if (attrs != std::string_view::npos) {
      size_t here = in_.pos();
      in_.seek(attrs);
      in_.expect_t("func_attr", "");
      in_.expect_op("(", "after 'T.func_attr'");
      attr_map = stmts_.exprs().parse_annotations();
      in_.expect_op(")", "after the attrs");
      stmts_.end_line("after T.func_attr(...)");
      in_.seek(here);
    }
    Stmt s = stmts_.parse_suite_rest();
    in_.expect(TokenKind::kDedent, "end of the function body", "");
    return {decorator.key.value_or(def.text),
            PrimFunc(decorator.name.value_or(def.text), std::move(buffers), s, std::move(attr_map))};
  }

 private:
  struct Param {
    const Token* name;
    size_t args;  // where the arguments of its T.Buffer(...) start
  };

  // `@T.prim_func`, `@T.prim_func(name="...")`, and in a module also
  // `key="..."` for a key that is not an identifier.
  Decorator parse_decorator() {
    in_.expect_op("@", "to start a function");
    in_.expect_t("prim_func", "after '@'");
    Decorator d;
    if (in_.accept_op("(")) {
      if (in_.accept_keyword("name")) d.name = in_.expect_string("as the function name").text;
      if (in_module_ && (!d.name || in_.accept_op(",")) && in_.accept_keyword("key"))
        d.key = in_.expect_string("as the module key").text;
      if (!d.name && !d.key) in_.fail_expected(in_module_ ? "'name=' or 'key='" : "'name='", "in @T.prim_func(...)");
      in_.expect_op(")", "after the decorator arguments");
    }
    stmts_.end_line("after the decorator");
    return d;
  }

  std::vector<Param> skip_params() {
    in_.expect_op("(", "after the function name");
    std::vector<Param> params;
    while (!in_.at_op(")")) {
      const Token& p = in_.expect_identifier("as a parameter name");
      in_.expect_op(":", "after parameter '" + p.text + "'");
      in_.expect_t("Buffer", "as the type of parameter '" + p.text + "'");
      size_t open = in_.pos();
      in_.expect_op("(", "after 'T.Buffer'");
      params.push_back({&p, open + 1});
      in_.seek(in_.after_closing(open));
      if (!in_.accept_op(",")) break;
    }
    in_.expect_op(")", "after the parameters");
    return params;
  }

  // n = T.int64()
  bool at_free_var() const {
    return in_.peek().kind == TokenKind::kName && in_.peek(1).is_op("=") && in_.peek(2).is_name("T") &&
           in_.peek(3).is_op(".") && dtype_from_name(in_.peek(4).text) && in_.peek(5).is_op("(") &&
           in_.peek(6).is_op(")");
  }

  void parse_free_var() {
    const Token& name = in_.next();
    in_.next();  // =
    in_.next();  // T
    in_.next();  // .
    const Token& type = in_.next();
    in_.next();  // (
    in_.next();  // )
    stmts_.end_line("after the declaration of '" + name.text + "'");
    names_.add_free(name, name.text, Var(name.text, expect_dtype(type, type.text)));
  }

  // W = T.Buffer((4,), "float32")
  bool at_free_buffer() const {
    return in_.peek().kind == TokenKind::kName && in_.peek(1).is_op("=") && in_.peek(2).is_name("T") &&
           in_.peek(3).is_op(".") && in_.peek(4).is_name("Buffer");
  }

  void parse_free_buffer() {
    const Token& name = in_.next();
    in_.next();  // =
    in_.expect_t("Buffer", "");
    in_.expect_op("(", "after 'T.Buffer'");
    Buffer b = stmts_.exprs().parse_buffer_args(name.text);
    in_.expect_op(")", "after the arguments of T.Buffer");
    stmts_.end_line("after T.Buffer(...)");
    names_.bind_buffer(name, b);
  }

  TokenCursor& in_;
  bool in_module_;
  NameTable names_;  // before stmts_, which refers to it
  StmtParser stmts_;
};

void add_env(NameTable& names, const ParseEnv& env) {
  for (const Var& v : env.vars) names.add_free(Token{TokenKind::kName, v.name(), 1, 1}, v.name(), v);
  for (const Buffer& b : env.buffers) names.add_free(Token{TokenKind::kName, b.name(), 1, 1}, b.name(), b);
}

void expect_end(TokenCursor& in, std::string_view after) { in.expect(TokenKind::kEnd, "end of input", after); }

}  // namespace
}  // namespace parser

using namespace parser;

PrimFunc parse_prim_func(std::string_view text) {
  TokenCursor in(tokenize(text));
  PrimFunc f = FuncParser(in, /*in_module=*/false).parse().func;
  expect_end(in, "after the function");
  return f;
}

IRModule parse_module(std::string_view text) {
  TokenCursor in(tokenize(text));
  in.expect_op("@", "to start a module");
  in.expect_name("I", "after '@'");
  in.expect_op(".", "after 'I'");
  in.expect_name("ir_module", "after 'I.'");
  in.expect(TokenKind::kNewline, "end of line", "after the decorator");
  in.expect_name("class", "after the decorator");
  in.expect_identifier("as the module name");
  in.expect_op(":", "after the module name");
  in.expect(TokenKind::kNewline, "end of line", "after ':'");
  in.expect(TokenKind::kIndent, "an indented block", "after the class line");
  std::map<std::string, PrimFunc> functions;
  if (in.accept_name("pass")) {
    in.expect(TokenKind::kNewline, "end of line", "after 'pass'");
  } else {
    while (!in.at(TokenKind::kDedent) && !in.at(TokenKind::kEnd)) {
      const Token& at = in.peek();
      ParsedFunc f = FuncParser(in, /*in_module=*/true).parse();
      if (!functions.emplace(f.key, f.func).second) error_at(at, "function '" + f.key + "' is defined twice");
    }
  }
  in.expect(TokenKind::kDedent, "end of the module", "");
  expect_end(in, "after the module");
  return IRModule(std::move(functions));
}

Stmt parse_stmt(std::string_view text, const ParseEnv& env) {
  TokenCursor in(tokenize(text));
  NameTable names;
  add_env(names, env);
  StmtParser p(in, names);
  Stmt s = p.parse_suite_rest();
  expect_end(in, "after the statements");
  return s;
}

Expr parse_expr(std::string_view text, const ParseEnv& env) {
  TokenCursor in(tokenize(text));
  NameTable names;
  add_env(names, env);
  Expr e = ExprParser(in, names).parse();
  if (in.at(TokenKind::kNewline)) in.next();
  expect_end(in, "after the expression");
  return e;
}

}  // namespace kiln
