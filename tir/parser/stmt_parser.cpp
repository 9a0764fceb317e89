// Suites and the simple statement kinds; loops and blocks have files of
// their own.
#include "tir/parser/stmt_parser.h"

#include "tir/parser/diagnostic.h"
#include "tir/parser/literals.h"
#include "tir/parser/nodes.h"

namespace kiln::parser {

namespace {

bool is_block_header_fn(std::string_view f) {
  return f == "reads" || f == "writes" || f == "where" || f == "block_attr" || f == "init" || f == "axis" ||
         f == "alloc_buffer";
}

bool is_function_header_fn(std::string_view f) {
  return f == "func_attr" || f == "Buffer" || dtype_from_name(f).has_value();
}

}  // namespace

Stmt make_suite(std::vector<Stmt> stmts) {
  if (stmts.size() == 1) return stmts[0];
  // Built directly: seq() would drop a written `T.evaluate(0)`.
  auto n = std::make_shared<SeqStmtNode>();
  n->seq = std::move(stmts);
  return finish_stmt(std::move(n));
}

Stmt StmtParser::parse_suite_rest() {
  std::vector<Stmt> items;
  while (!in_.at(TokenKind::kDedent) && !in_.at(TokenKind::kEnd)) {
    const Token& t = in_.peek();
    if (t.kind == TokenKind::kIndent) error_at(t, "unexpected indentation");
    if (t.is_name("pass")) {
      in_.next();
      end_line("after 'pass'");
      continue;
    }
    // A declaration line: the rest of the suite is its body.
    if (t.kind == TokenKind::kName && in_.peek(1).is_op(":")) {
      items.push_back(parse_let_decl());
      break;
    }
    if (t.kind == TokenKind::kName && in_.peek(1).is_op("=") && in_.peek(2).is_name("T") &&
        in_.peek(3).is_op(".") && in_.peek(4).is_name("allocate")) {
      items.push_back(parse_allocate_decl());
      break;
    }
    items.push_back(parse_statement());
  }
  return make_suite(std::move(items));
}

Stmt StmtParser::parse_body(std::string_view after) {
  in_.expect_op(":", after);
  in_.expect(TokenKind::kNewline, "end of line", "after ':'");
  in_.expect(TokenKind::kIndent, "an indented block", "after ':'");
  Stmt body = parse_suite_rest();
  in_.expect(TokenKind::kDedent, "end of block", "");
  return body;
}

void StmtParser::end_line(std::string_view after) { in_.expect(TokenKind::kNewline, "end of line", after); }

Stmt StmtParser::parse_statement() {
  const Token& t = in_.peek();
  if (t.is_name("for")) return parse_for();
  if (t.is_name("if")) return parse_if();
  if (t.is_name("with")) return parse_with();
  if (in_.at_t("evaluate")) return parse_evaluate();
  if (in_.at_t("barrier")) return parse_barrier();
  if (in_.at_t("prefetch")) return parse_prefetch();
  if (t.is_name("T") && in_.peek(1).is_op(".")) misplaced_t_statement();
  if (t.kind == TokenKind::kName && in_.peek(1).is_op("[")) return parse_store();
  if (t.kind == TokenKind::kName && in_.peek(1).is_op("=") && in_.peek(2).is_name("T") && in_.peek(3).is_op("."))
    misplaced_t_statement();
  in_.fail_expected("a statement", "");
}

// `T.reads(...)` or `x = T.axis...` out of place, or an unknown `T.` name.
void StmtParser::misplaced_t_statement() {
  size_t fn_at = in_.peek().is_name("T") ? 2 : 4;
  const Token& fn = in_.peek(fn_at);
  if (is_block_header_fn(fn.text))
    error_at(fn, "'T." + fn.text + "' is only allowed at the top of a block, in the order axes, T.where, T.reads, "
                 "T.writes, T.block_attr, T.alloc_buffer, T.init");
  if (is_function_header_fn(fn.text))
    error_at(fn, "'T." + fn.text + "' is only allowed at the top of a function body");
  error_at(fn, "unknown function 'T." + fn.text + "'");
}

// A[i, j] = value
Stmt StmtParser::parse_store() {
  const Token& name = in_.next();
  const ObjectRef& object = names_.lookup(name);
  if (!object.as<BufferNode>()) error_at(name, "'" + name.text + "' is a variable; only buffer elements are assigned");
  Buffer buffer(object.ptr());
  in_.expect_op("[", "after the buffer");
  std::vector<Expr> indices = exprs_.parse_indices(name.text);
  in_.expect_op("=", "after the indices of the store");
  const Token& at = in_.peek();
  Expr value = exprs_.parse();
  end_line("after the stored value");
  if (value.dtype().element_of() != buffer.dtype())
    error_at(at, "cannot store " + value.dtype().str() + " into '" + name.text + "' of " + buffer.dtype().str());
  return buffer_store(buffer, value, std::move(indices));
}

Stmt StmtParser::parse_evaluate() {
  in_.expect_t("evaluate", "");
  in_.expect_op("(", "after 'T.evaluate'");
  Expr value = exprs_.parse();
  in_.expect_op(")", "after the value of T.evaluate");
  end_line("after T.evaluate(...)");
  return evaluate(value);
}

// T.barrier("shared")
Stmt StmtParser::parse_barrier() {
  in_.expect_t("barrier", "");
  in_.expect_op("(", "after 'T.barrier'");
  const Token& scope = in_.next();
  if (scope.kind != TokenKind::kString || scope.text != "shared")
    error_at(scope, "T.barrier takes the memory it orders, \"shared\"");
  in_.expect_op(")", "after the scope of T.barrier");
  end_line("after T.barrier(...)");
  return barrier(scope.text);
}

// T.prefetch(B[index])
Stmt StmtParser::parse_prefetch() {
  in_.expect_t("prefetch", "");
  in_.expect_op("(", "after 'T.prefetch'");
  const Token at = in_.peek();
  Expr element = exprs_.parse();
  const auto* load = element.as<BufferLoadNode>();
  if (!load) error_at(at, "T.prefetch takes one element of a buffer, B[index]");
  in_.expect_op(")", "after the element of T.prefetch");
  end_line("after T.prefetch(...)");
  return prefetch(load->buffer, load->indices);
}

Stmt StmtParser::parse_if() {
  in_.expect_name("if", "");
  const Token& at = in_.peek();
  Expr cond = exprs_.parse();
  if (cond.dtype() != DataType::Bool()) error_at(at, "an if condition must be bool, not " + cond.dtype().str());
  Stmt then_case = parse_body("after the if condition");
  Stmt else_case;
  if (in_.at_name("elif")) error_at(in_.peek(), "'elif' is not part of the text; nest an if under 'else:'");
  if (in_.accept_name("else")) else_case = parse_body("after 'else'");
  return if_then_else(cond, then_case, else_case);
}

Stmt StmtParser::parse_with() {
  in_.expect_name("with", "");
  if (in_.at_t("block")) return parse_block();
  if (in_.at_t("LetStmt")) return parse_with_let();
  if (in_.at_t("allocate")) return parse_with_allocate();
  if (in_.at_t("init")) error_at(in_.peek(2), "'T.init' is only allowed at the top of a block, before its body");
  in_.fail_expected("T.block, T.LetStmt or T.allocate", "after 'with'");
}

// t: T.int32 = value, then the rest of the suite.
Stmt StmtParser::parse_let_decl() {
  const Token& name = in_.next();
  in_.expect_op(":", "");
  if (!in_.peek().is_name("T") || !in_.peek(1).is_op(".")) in_.fail_expected("a type such as T.int32", "after ':'");
  in_.next();
  in_.next();
  const Token& type_name = in_.expect_identifier("as the variable type");
  DataType t = expect_dtype(type_name, type_name.text);
  in_.expect_op("=", "after the type of '" + name.text + "'");
  const Token& at = in_.peek();
  Expr value = exprs_.parse();
  end_line("after the value of '" + name.text + "'");
  if (value.dtype() != t)
    error_at(at, "the value of '" + name.text + "' has type " + value.dtype().str() + ", not " + t.str());
  ScopeGuard scope(names_);
  Var v = names_.bind_var(name, t);
  return let_stmt(v, value, parse_suite_rest());
}

// with T.LetStmt(value) as t:
Stmt StmtParser::parse_with_let() {
  in_.expect_t("LetStmt", "");
  in_.expect_op("(", "after 'T.LetStmt'");
  Expr value = exprs_.parse();
  in_.expect_op(")", "after the value of T.LetStmt");
  in_.expect_name("as", "after T.LetStmt(...)");
  const Token& name = in_.expect_identifier("after 'as'");
  ScopeGuard scope(names_);
  Var v = names_.bind_var(name, value.dtype());
  return let_stmt(v, value, parse_body("after 'as " + name.text + "'"));
}

// B = T.allocate((16,), "float32", scope="local"), then the rest of the suite.
Stmt StmtParser::parse_allocate_decl() {
  const Token& name = in_.next();
  in_.expect_op("=", "");
  in_.expect_t("allocate", "");
  in_.expect_op("(", "after 'T.allocate'");
  Buffer buffer = exprs_.parse_buffer_args(name.text);
  in_.expect_op(")", "after the arguments of T.allocate");
  end_line("after T.allocate(...)");
  ScopeGuard scope(names_);
  buffer = names_.bind_buffer(name, buffer);
  return allocate(buffer, parse_suite_rest());
}

// with T.allocate((16,), "float32") as B: the name follows the arguments
// that declare it, so it is looked up first.
Stmt StmtParser::parse_with_allocate() {
  in_.expect_t("allocate", "");
  size_t open = in_.pos();
  in_.expect_op("(", "after 'T.allocate'");
  size_t close = in_.after_closing(open);
  const Token& name = in_.at(close + 1);
  if (!in_.at(close).is_name("as") || name.kind != TokenKind::kName) {
    in_.seek(close);
    in_.fail_expected("'as' and a name", "after T.allocate(...)");
  }
  Buffer buffer = exprs_.parse_buffer_args(name.text);
  in_.expect_op(")", "after the arguments of T.allocate");
  in_.next();  // as
  in_.next();  // the name
  ScopeGuard scope(names_);
  buffer = names_.bind_buffer(name, buffer);
  return allocate(buffer, parse_body("after 'as " + name.text + "'"));
}

}  // namespace kiln::parser
