// Operators, names, loads and plain literals; the `T.` functions are in
// t_calls.cpp.
#include "tir/parser/expr_parser.h"

#include "core/expr_type.h"

#include "tir/parser/diagnostic.h"
#include "tir/parser/literals.h"
#include "tir/parser/nodes.h"

namespace kiln::parser {

namespace {

struct OpKind {
  std::string_view op;
  ExprKind kind;
};

constexpr OpKind kComparisons[] = {{"==", ExprKind::EQ}, {"!=", ExprKind::NE}, {"<", ExprKind::LT},
                                   {"<=", ExprKind::LE}, {">", ExprKind::GT},  {">=", ExprKind::GE}};
constexpr OpKind kSums[] = {{"+", ExprKind::Add}, {"-", ExprKind::Sub}};
constexpr OpKind kProducts[] = {{"*", ExprKind::Mul}, {"/", ExprKind::Div}, {"//", ExprKind::FloorDiv},
                                {"%", ExprKind::FloorMod}};

template <size_t N>
const OpKind* match(const Token& t, const OpKind (&table)[N]) {
  if (t.kind != TokenKind::kOp) return nullptr;
  for (const OpKind& o : table)
    if (t.text == o.op) return &o;
  return nullptr;
}

bool is_bool(const Expr& e) { return e.dtype().element_of().is_bool(); }

}  // namespace

Expr ExprParser::binary(ExprKind kind, const Token& op, Expr a, Expr b) {
  if (auto e = binary_operand_error(kind, a.dtype(), b.dtype(), "'" + op.text + "'")) error_at(op, *e);
  // Integer division is spelled out (T.truncdiv or //), so '/' is for floats.
  if (kind == ExprKind::Div && !a.dtype().is_float())
    error_at(op, "'/' divides floats; write T.truncdiv(a, b) or a // b for integers");
  return make_binary(kind, std::move(a), std::move(b));
}

Expr ExprParser::parse_or() {
  Expr e = parse_and();
  while (in_.at_name("or")) {
    const Token& op = in_.next();
    e = binary(ExprKind::Or, op, e, parse_and());
  }
  return e;
}

Expr ExprParser::parse_and() {
  Expr e = parse_not();
  while (in_.at_name("and")) {
    const Token& op = in_.next();
    e = binary(ExprKind::And, op, e, parse_not());
  }
  return e;
}

Expr ExprParser::parse_not() {
  if (!in_.at_name("not")) return parse_comparison();
  const Token& op = in_.next();
  Expr a = parse_not();
  if (!is_bool(a)) error_at(op, "operand of 'not' must be bool, not " + a.dtype().str());
  auto n = new_expr<NotNode>(a.dtype());
  n->a = std::move(a);
  return finish(std::move(n));
}

Expr ExprParser::parse_comparison() {
  Expr e = parse_sum();
  if (const OpKind* o = match(in_.peek(), kComparisons)) {
    const Token& op = in_.next();
    e = binary(o->kind, op, e, parse_sum());
    // Python would read `a < b < c` as `a < b and b < c`; the printer
    // parenthesises instead, so a chain is a mistake.
    if (match(in_.peek(), kComparisons))
      error_at(in_.peek(), "comparisons do not chain; parenthesize one side");
  }
  return e;
}

Expr ExprParser::parse_sum() {
  Expr e = parse_term();
  while (const OpKind* o = match(in_.peek(), kSums)) {
    const Token& op = in_.next();
    e = binary(o->kind, op, e, parse_term());
  }
  return e;
}

Expr ExprParser::parse_term() {
  Expr e = parse_factor();
  while (const OpKind* o = match(in_.peek(), kProducts)) {
    const Token& op = in_.next();
    e = binary(o->kind, op, e, parse_factor());
  }
  return e;
}

// The only unary minus the printer writes is a negative int32 literal; any
// other negation is a Sub and prints as one.
Expr ExprParser::parse_factor() {
  if (!in_.at_op("-")) return parse_atom();
  in_.next();
  if (in_.at(TokenKind::kInt)) return int_literal(in_.next(), /*negative=*/true, DataType::Int32());
  if (in_.at(TokenKind::kFloat)) error_at(in_.peek(), "a float needs its type, as in T.float32(-" + in_.peek().text + ")");
  in_.fail_expected("an integer after unary '-'", "(write 0 - x to negate an expression)");
}

Expr ExprParser::parse_atom() {
  const Token& t = in_.peek();
  switch (t.kind) {
    case TokenKind::kInt: return int_literal(in_.next(), false, DataType::Int32());
    case TokenKind::kFloat: error_at(t, "a float needs its type, as in T.float32(" + t.text + ")");
    case TokenKind::kString: return string_imm(in_.next().text);
    case TokenKind::kName: {
      if (t.text == "True" || t.text == "False") {
        in_.next();
        return int_imm(DataType::Bool(), t.text == "True");
      }
      if (t.text == "T" && in_.peek(1).is_op(".")) return parse_t_call();
      return parse_name();
    }
    case TokenKind::kOp:
      if (t.is_op("(")) {
        in_.next();
        Expr e = parse();
        in_.expect_op(")", "to close the parenthesized expression");
        return e;
      }
      break;
    default: break;
  }
  in_.fail_expected("an expression", "");
}

// A variable, or a load `A[i, j]`.
Expr ExprParser::parse_name() {
  const Token& name = in_.next();
  const ObjectRef& object = names_.lookup(name);
  if (object.as<VarNode>()) return Expr(object.ptr());
  Buffer b(object.ptr());
  in_.expect_op("[", "after buffer '" + name.text + "' in an expression");
  std::vector<Expr> indices = parse_indices(name.text);
  return buffer_load(b, std::move(indices));
}

// `i, j]` or `()]` for a zero-dimensional buffer; the '[' is read.
std::vector<Expr> ExprParser::parse_indices(const std::string& buffer) {
  std::vector<Expr> indices;
  if (in_.at_op("(") && in_.peek(1).is_op(")")) {
    in_.next();
    in_.next();
  } else {
    do indices.push_back(parse_index("an index of '" + buffer + "'"));
    while (in_.accept_op(","));
  }
  in_.expect_op("]", "after the indices of '" + buffer + "'");
  return indices;
}

Expr ExprParser::parse_index(std::string_view what) {
  const Token& at = in_.peek();
  Expr e = parse();
  if (!e.dtype().is_integral() || e.dtype().is_bool())
    error_at(at, std::string(what) + " must be an integer, not " + e.dtype().str());
  return e;
}

}  // namespace kiln::parser
