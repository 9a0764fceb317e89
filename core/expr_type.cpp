#include "core/expr_type.h"

#include <algorithm>

namespace kiln {
namespace {

std::string typed(const std::string& what, DataType t) { return what + " of type " + t.str(); }

bool is_arith(ExprKind k) { return k >= ExprKind::Add && k <= ExprKind::Max; }
bool is_logic(ExprKind k) { return k == ExprKind::And || k == ExprKind::Or; }

std::optional<std::string> binary_error(const ExprNode& n, const Expr& a, const Expr& b) {
  const char* name = expr_kind_name(n.kind);
  if (!a.defined() || !b.defined()) return std::string(name) + " with a missing operand";
  if (auto e = binary_operand_error(n.kind, a.dtype(), b.dtype(), name)) return e;
  const DataType want = binary_result_type(n.kind, a.dtype());
  if (n.dtype != want) return std::string(name) + " of " + a.dtype().str() + " typed " + n.dtype.str() + ", not " + want.str();
  return std::nullopt;
}

}  // namespace

DataType binary_result_type(ExprKind kind, DataType operands) {
  return is_comparison(kind) ? DataType::Bool(operands.lanes()) : operands;
}

std::optional<std::string> binary_operand_error(ExprKind kind, DataType a, DataType b, const std::string& op) {
  if (a != b) return "operands of " + op + " have different types " + a.str() + " and " + b.str();
  const bool is_bool = a.element_of().is_bool();
  if (is_logic(kind)) {
    if (!is_bool) return "operands of " + op + " must be bool, not " + a.str();
  } else if (is_arith(kind)) {
    if (is_bool || !(a.is_integral() || a.is_float())) return "operands of " + op + " must be numbers, not " + a.str();
  } else if (a.is_handle() || a.is_void()) {
    return "operands of " + op + " must be values, not " + a.str();
  }
  return std::nullopt;
}

std::optional<std::string> ramp_error(DataType base, DataType stride, int64_t lanes) {
  if (lanes < 2) return "a ramp needs at least 2 lanes, not " + std::to_string(lanes);
  if (!base.is_integral() || base.is_bool() || !base.is_scalar() || stride != base)
    return "a ramp needs a scalar integer base and stride of one type, not " + base.str() + " and " + stride.str();
  return std::nullopt;
}

DataType vector_of(DataType t, int64_t lanes) { return t.with_lanes(static_cast<int>(lanes)); }

DataType load_type(DataType element, const std::vector<Expr>& indices) {
  int lanes = 1;
  for (const Expr& i : indices)
    if (i.defined()) lanes = std::max(lanes, i.dtype().lanes());
  return element.with_lanes(lanes);
}

std::optional<std::string> expr_type_error(const ExprNode& n) {
  const DataType t = n.dtype;
  switch (n.kind) {
    case ExprKind::IntImm:
      if (!t.is_integral() || !t.is_scalar()) return typed("integer constant", t);
      return std::nullopt;
    case ExprKind::FloatImm:
      if (!t.is_float() || !t.is_scalar()) return typed("float constant", t);
      return std::nullopt;
    case ExprKind::StringImm:
      if (!t.is_handle()) return typed("string constant", t);
      return std::nullopt;
    case ExprKind::Var:
      if (t.is_void()) return typed("variable " + static_cast<const VarNode&>(n).name, t);
      return std::nullopt;
    case ExprKind::Not: {
      const Expr& a = static_cast<const NotNode&>(n).a;
      if (!a.defined()) return std::string("! with a missing operand");
      if (!a.dtype().element_of().is_bool() || t != a.dtype()) return "! of " + a.dtype().str() + " typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::Select: {
      const auto& s = static_cast<const SelectNode&>(n);
      if (!s.cond.defined() || !s.true_value.defined() || !s.false_value.defined())
        return std::string("select with a missing operand");
      DataType c = s.cond.dtype();
      if (!c.element_of().is_bool() || (c.lanes() != 1 && c.lanes() != t.lanes()))
        return typed("select condition", c) + " for a value of " + t.str();
      if (s.true_value.dtype() != s.false_value.dtype())
        return "select between " + s.true_value.dtype().str() + " and " + s.false_value.dtype().str();
      if (t != s.true_value.dtype()) return "select of " + s.true_value.dtype().str() + " typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::Cast: {
      const Expr& v = static_cast<const CastNode&>(n).value;
      if (!v.defined()) return std::string("cast of nothing");
      if (v.dtype().lanes() != t.lanes()) return "cast of " + v.dtype().str() + " to " + t.str() + ": lanes differ";
      if (t.is_void() || v.dtype().is_void()) return "cast of " + v.dtype().str() + " to " + t.str();
      return std::nullopt;
    }
    case ExprKind::Ramp: {
      const auto& r = static_cast<const RampNode&>(n);
      if (!r.base.defined() || !r.stride.defined()) return std::string("ramp with a missing operand");
      if (auto e = ramp_error(r.base.dtype(), r.stride.dtype(), r.lanes)) return e;
      if (t != vector_of(r.base.dtype(), r.lanes))
        return "ramp of " + std::to_string(r.lanes) + " " + r.base.dtype().str() + " typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::Broadcast: {
      const auto& b = static_cast<const BroadcastNode&>(n);
      if (!b.value.defined()) return std::string("broadcast of nothing");
      if (b.lanes < 2 || !b.value.dtype().is_scalar())
        return "broadcast of " + b.value.dtype().str() + " to " + std::to_string(b.lanes) + " lanes";
      if (t != vector_of(b.value.dtype(), b.lanes))
        return "broadcast of " + b.value.dtype().str() + " to " + std::to_string(b.lanes) + " lanes typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::Let: {
      const auto& l = static_cast<const LetNode&>(n);
      if (!l.var.defined() || !l.value.defined() || !l.body.defined()) return std::string("let with a missing part");
      if (l.var.dtype() != l.value.dtype())
        return "let " + l.var.name() + " of " + l.var.dtype().str() + " bound to " + l.value.dtype().str();
      if (t != l.body.dtype()) return "let with a body of " + l.body.dtype().str() + " typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::Call: {
      const auto& c = static_cast<const CallNode&>(n);
      const char* name = intrinsic_name(c.op);
      if (static_cast<int>(c.args.size()) != intrinsic_arity(c.op))
        return std::string(name) + " takes " + std::to_string(intrinsic_arity(c.op)) + " arguments, not " +
               std::to_string(c.args.size());
      for (const Expr& a : c.args) {
        if (!a.defined()) return std::string(name) + " with a missing argument";
        if (a.dtype() != c.args[0].dtype())
          return std::string(name) + " of " + c.args[0].dtype().str() + " and " + a.dtype().str();
      }
      if (t != c.args[0].dtype()) return std::string(name) + " of " + c.args[0].dtype().str() + " typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::BufferLoad: {
      const auto& l = static_cast<const BufferLoadNode&>(n);
      if (!l.buffer.defined()) return std::string("load from no buffer");
      for (const Expr& i : l.indices) {
        if (!i.defined() || !i.dtype().is_integral())
          return "index of " + l.buffer.name() + " of type " + (i.defined() ? i.dtype().str() : "nothing");
      }
      const DataType want = load_type(l.buffer.dtype(), l.indices);
      if (t != want) return "load of " + want.str() + " from " + l.buffer.name() + " typed " + t.str();
      return std::nullopt;
    }
    case ExprKind::Reduce: {
      const auto& r = static_cast<const ReduceNode&>(n);
      if (!r.source.defined()) return std::string("reduction of nothing");
      if (r.combiner > ReduceKind::kProd)  // read from a file: enums travel as integers
        return "reduction with combiner " + std::to_string(static_cast<int>(r.combiner)) +
               ", none of sum, max, min, prod";
      if (t != r.source.dtype()) return "reduction of " + r.source.dtype().str() + " typed " + t.str();
      return std::nullopt;
    }
    default: break;
  }
  BinaryOperands ops = binary_operands_of(n);
  if (ops) return binary_error(n, *ops.a, *ops.b);
  return std::string("expression of unknown kind ") + expr_kind_name(n.kind);
}

}  // namespace kiln
