// The `T.` functions of expressions: typed immediates, the nodes without an
// operator (Select, Cast, Ramp, Broadcast, Let), truncating division, min
// and max, intrinsic calls and reductions. One table maps each spelling to
// its reader, so an unknown name is reported before its arguments are read.
#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/expr_type.h"

#include "tir/parser/diagnostic.h"
#include "tir/parser/expr_parser.h"
#include "tir/parser/literals.h"
#include "tir/parser/nodes.h"

namespace kiln::parser {

namespace {

std::string fn_name(const Token& fn) { return "T." + fn.text; }

bool is_number_type(DataType t) { return !t.is_handle() && !t.is_void() && !t.element_of().is_bool(); }

}  // namespace

Expr ExprParser::parse_t_call() {
  using Reader = Expr (ExprParser::*)(const Token&);
  static const std::unordered_map<std::string_view, Reader> kReaders = {
      {"Select", &ExprParser::parse_select},   {"Cast", &ExprParser::parse_cast},
      {"Ramp", &ExprParser::parse_ramp},       {"Broadcast", &ExprParser::parse_broadcast},
      {"Let", &ExprParser::parse_let},         {"Var", &ExprParser::parse_free_var},
  };
  in_.next();  // T
  in_.next();  // .
  const Token& fn = in_.expect_identifier("after 'T.'");
  const std::string& f = fn.text;
  auto reader = kReaders.find(f);
  std::optional<DataType> type = dtype_from_name(f);
  std::optional<Intrinsic> intrinsic;
#define X(name, arity) \
  if (f == #name) intrinsic = Intrinsic::name;
  KILN_FOR_EACH_INTRINSIC(X)
#undef X
  bool known = reader != kReaders.end() || type || intrinsic || f == "truncdiv" || f == "truncmod" || f == "min" ||
               f == "max" || f == "sum" || f == "prod";
  if (!known) error_at(fn, "unknown function '" + fn_name(fn) + "'");
  in_.expect_op("(", "after '" + fn_name(fn) + "'");

  if (reader != kReaders.end()) return (this->*(reader->second))(fn);
  if (type) return parse_immediate(fn, *type);
  if (intrinsic) return parse_intrinsic(fn, *intrinsic);
  if (f == "sum") return parse_reduce(fn, ReduceKind::kSum);
  if (f == "prod") return parse_reduce(fn, ReduceKind::kProd);
  if (f == "truncdiv") return parse_binary_call(fn, ExprKind::Div);
  if (f == "truncmod") return parse_binary_call(fn, ExprKind::Mod);
  // T.min(a, b) is the binary node, T.min(src, axis=[...]) a reduction.
  bool is_min = f == "min";
  if (at_reduce_form()) return parse_reduce(fn, is_min ? ReduceKind::kMin : ReduceKind::kMax);
  return parse_binary_call(fn, is_min ? ExprKind::Min : ExprKind::Max);
}

std::vector<Expr> ExprParser::parse_args(const Token& fn, size_t count) {
  std::vector<Expr> args;
  for (size_t i = 0; i < count; ++i) {
    if (i) in_.expect_op(",", "between the arguments of " + fn_name(fn));
    args.push_back(parse());
  }
  in_.expect_op(")", "after the " + std::to_string(count) + " argument" + (count == 1 ? "" : "s") + " of " +
                         fn_name(fn));
  return args;
}

// T.float32(1.5), T.float32("inf"), T.int64(-3), T.uint8(255), T.bool(True).
Expr ExprParser::parse_immediate(const Token& fn, DataType t) {
  if (t.is_vector())
    error_at(fn, "immediates are scalars; write T.Broadcast(T." + t.element_of().str() + "(value), " +
                     std::to_string(t.lanes()) + ")");
  if (t.is_handle() || t.is_void()) error_at(fn, "no immediate has type " + t.str());
  Expr value;
  if (t.is_float() && in_.at(TokenKind::kString)) {
    const Token& s = in_.next();
    double inf = std::numeric_limits<double>::infinity();
    if (s.text == "inf") value = float_imm(t, inf);
    else if (s.text == "-inf") value = float_imm(t, -inf);
    else if (s.text == "nan") value = float_imm(t, std::numeric_limits<double>::quiet_NaN());
    else error_at(s, "expected a number, \"inf\", \"-inf\" or \"nan\" in " + fn_name(fn));
  } else if (t.is_bool() && (in_.at_name("True") || in_.at_name("False"))) {
    value = int_imm(t, in_.next().text == "True");
  } else {
    bool negative = in_.accept_op("-");
    if (in_.at(TokenKind::kInt) || (t.is_float() && in_.at(TokenKind::kFloat))) {
      const Token& number = in_.next();
      value = t.is_float() ? float_literal(number, negative, t) : int_literal(number, negative, t);
    } else {
      in_.fail_expected(t.is_float() ? "a number" : "an integer", "in " + fn_name(fn));
    }
  }
  in_.expect_op(")", "after the value of " + fn_name(fn));
  return value;
}

Expr ExprParser::parse_select(const Token& fn) {
  const Token& at = in_.peek();
  std::vector<Expr> a = parse_args(fn, 3);
  if (!a[0].dtype().element_of().is_bool()) error_at(at, "the condition of T.Select must be bool, not " + a[0].dtype().str());
  if (a[1].dtype() != a[2].dtype())
    error_at(at, "the values of T.Select have different types " + a[1].dtype().str() + " and " + a[2].dtype().str());
  if (a[0].dtype().lanes() != 1 && a[0].dtype().lanes() != a[1].dtype().lanes())
    error_at(at, "the condition of T.Select has " + std::to_string(a[0].dtype().lanes()) + " lanes, its values " +
                     std::to_string(a[1].dtype().lanes()));
  auto n = new_expr<SelectNode>(a[1].dtype());
  n->cond = a[0];
  n->true_value = a[1];
  n->false_value = a[2];
  return finish(std::move(n));
}

Expr ExprParser::parse_cast(const Token& fn) {
  DataType t = parse_dtype_string("as the target type of T.Cast");
  in_.expect_op(",", "after the target type of T.Cast");
  const Token& at = in_.peek();
  Expr v = parse();
  in_.expect_op(")", "after the value of T.Cast");
  if (v.dtype().lanes() != t.lanes())
    error_at(at, "T.Cast to " + t.str() + " of a value with " + std::to_string(v.dtype().lanes()) + " lanes");
  if (t.is_void() || t.is_handle() || v.dtype().is_handle()) error_at(at, "T.Cast converts numbers only");
  auto n = new_expr<CastNode>(t);
  n->value = std::move(v);
  return finish(std::move(n));
}

Expr ExprParser::parse_ramp(const Token& fn) {
  const Token& at = in_.peek();
  Expr base = parse();
  in_.expect_op(",", "after the base of T.Ramp");
  Expr stride = parse();
  in_.expect_op(",", "after the stride of T.Ramp");
  int64_t lanes = parse_count("as the lane count of T.Ramp");
  in_.expect_op(")", "after the lane count of T.Ramp");
  if (auto e = ramp_error(base.dtype(), stride.dtype(), lanes)) error_at(at, "T.Ramp: " + *e);
  auto n = new_expr<RampNode>(vector_of(base.dtype(), lanes));
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  return finish(std::move(n));
}

Expr ExprParser::parse_broadcast(const Token& fn) {
  const Token& at = in_.peek();
  Expr v = parse();
  in_.expect_op(",", "after the value of T.Broadcast");
  int64_t lanes = parse_count("as the lane count of T.Broadcast");
  in_.expect_op(")", "after the lane count of T.Broadcast");
  if (!v.dtype().is_scalar()) error_at(at, "T.Broadcast of a vector of type " + v.dtype().str());
  if (lanes < 2) error_at(at, "T.Broadcast needs at least 2 lanes");
  auto n = new_expr<BroadcastNode>(vector_of(v.dtype(), lanes));
  n->value = std::move(v);
  n->lanes = lanes;
  return finish(std::move(n));
}

// T.Let(x, value, body): x takes the type of value and is visible in body.
Expr ExprParser::parse_let(const Token& fn) {
  const Token& name = in_.expect_identifier("as the variable of T.Let");
  in_.expect_op(",", "after the variable of T.Let");
  Expr value = parse();
  in_.expect_op(",", "after the value of T.Let");
  ScopeGuard scope(names_);
  Var v = names_.bind_var(name, value.dtype());
  Expr body = parse();
  in_.expect_op(")", "after the body of T.Let");
  return let(v, value, body);
}

// T.Var("n", "int64"): a variable nothing in the text binds.
Expr ExprParser::parse_free_var(const Token& fn) {
  const Token& name = in_.expect_string("as the name of T.Var");
  in_.expect_op(",", "after the name of T.Var");
  DataType t = parse_dtype_string("as the type of T.Var");
  in_.expect_op(")", "after the type of T.Var");
  return names_.free_var(name, name.text, t);
}

// T.truncdiv, T.truncmod, T.min, T.max with two operands.
Expr ExprParser::parse_binary_call(const Token& fn, ExprKind kind) {
  const Token& at = in_.peek();
  std::vector<Expr> a = parse_args(fn, 2);
  if (auto e = binary_operand_error(kind, a[0].dtype(), a[1].dtype(), fn_name(fn))) error_at(at, *e);
  // Float division prints as '/', so T.truncdiv is for integers only.
  if (kind == ExprKind::Div && a[0].dtype().is_float())
    error_at(at, "T.truncdiv divides integers; write a / b for floats");
  return make_binary(kind, a[0], a[1]);
}

Expr ExprParser::parse_intrinsic(const Token& fn, Intrinsic op) {
  const Token& at = in_.peek();
  std::vector<Expr> a = parse_args(fn, static_cast<size_t>(intrinsic_arity(op)));
  for (const Expr& e : a) {
    if (e.dtype() != a[0].dtype())
      error_at(at, "arguments of " + fn_name(fn) + " have different types " + a[0].dtype().str() + " and " +
                       e.dtype().str());
  }
  if (!is_number_type(a[0].dtype())) error_at(at, "arguments of " + fn_name(fn) + " must be numbers");
  return call(op, std::move(a));
}

bool ExprParser::at_reduce_form() const {
  size_t comma = in_.find_top_level(in_.pos(), ",");
  return comma != std::string_view::npos && in_.at(comma + 1).is_name("axis") && in_.at(comma + 2).is_op("=");
}

// T.sum(source, axis=[T.reduce_axis(k, 32)]). The axes bind the names the
// source uses but come after it, so they are read first and the cursor then
// goes back to the source.
Expr ExprParser::parse_reduce(const Token& fn, ReduceKind kind) {
  size_t source = in_.pos();
  if (!at_reduce_form()) {
    parse();
    in_.expect_op(",", "after the source of " + fn_name(fn));
    in_.expect_keyword("axis", "in " + fn_name(fn));
  }
  size_t comma = in_.find_top_level(source, ",");
  in_.seek(comma + 3);
  ScopeGuard scope(names_);
  in_.expect_op("[", "to open the axis list of " + fn_name(fn));
  std::vector<IterVar> axes;
  while (!in_.at_op("]")) {
    axes.push_back(parse_reduce_axis());
    if (!in_.accept_op(",")) break;
  }
  in_.expect_op("]", "after the axes of " + fn_name(fn));
  in_.expect_op(")", "after the axes of " + fn_name(fn));
  size_t end = in_.pos();
  in_.seek(source);
  Expr src = parse();
  if (in_.pos() != comma) in_.fail_expected("','", "after the source of " + fn_name(fn));
  in_.seek(end);
  return reduce(kind, std::move(src), std::move(axes));
}

// T.reduce_axis(k, 32) or T.spatial_axis(i, (2, 10), dtype="int64").
IterVar ExprParser::parse_reduce_axis() {
  bool is_reduce = in_.at_t("reduce_axis");
  if (!is_reduce && !in_.at_t("spatial_axis")) in_.fail_expected("T.reduce_axis or T.spatial_axis", "in the axis list");
  in_.next();
  in_.next();
  in_.next();
  in_.expect_op("(", "after the axis function");
  const Token& name = in_.expect_identifier("as the axis variable");
  in_.expect_op(",", "after the axis variable");
  Range dom = parse_domain();
  DataType t = parse_bound_dtype(dom->extent);
  in_.expect_op(")", "after the axis domain");
  Var v = names_.bind_var(name, t);
  return IterVar(v, dom, is_reduce ? IterType::kReduce : IterType::kSpatial);
}

}  // namespace kiln::parser
