#include "core/expr.h"

#include <cmath>
#include <limits>

#include "core/expr_type.h"
#include "core/int_div.h"

namespace kiln {

// The generated members of every expression node (core/object.h).
KILN_DEFINE_NODE(VarNode);
KILN_DEFINE_NODE(RangeNode);
KILN_DEFINE_NODE(BufferNode);
KILN_DEFINE_NODE(IterVarNode);
KILN_DEFINE_NODE(IntImmNode);
KILN_DEFINE_NODE(FloatImmNode);
KILN_DEFINE_NODE(StringImmNode);
KILN_DEFINE_NODE(NotNode);
KILN_DEFINE_NODE(SelectNode);
KILN_DEFINE_NODE(CastNode);
KILN_DEFINE_NODE(RampNode);
KILN_DEFINE_NODE(BroadcastNode);
KILN_DEFINE_NODE(LetNode);
KILN_DEFINE_NODE(CallNode);
KILN_DEFINE_NODE(BufferLoadNode);
KILN_DEFINE_NODE(ReduceNode);
#define KILN_DEFINE_BINARY(Name, Sym) KILN_DEFINE_NODE(Name##Node);
KILN_FOR_EACH_BINARY_EXPR(KILN_DEFINE_BINARY)
KILN_FOR_EACH_CMP_EXPR(KILN_DEFINE_BINARY)
KILN_FOR_EACH_LOGIC_EXPR(KILN_DEFINE_BINARY)
#undef KILN_DEFINE_BINARY

const char* expr_kind_name(ExprKind k) {
  switch (k) {
#define X(Name, Sym) \
  case ExprKind::Name: return #Name;
    KILN_FOR_EACH_EXPR(X)
#undef X
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Handles.

Expr::Expr(int v) : Expr(int_imm(DataType::Int32(), v)) {}
Expr::Expr(int64_t v) : Expr(int_imm(DataType::Int64(), v)) {}
Expr::Expr(float v) : Expr(float_imm(DataType::Float32(), v)) {}

Var::Var(std::string name, DataType dtype) {
  auto n = std::make_shared<VarNode>();
  n->name = std::move(name);
  n->dtype = dtype;
  ptr_ = std::move(n);
}

Range::Range(Expr min, Expr extent) {
  auto n = std::make_shared<RangeNode>();
  n->min = std::move(min);
  n->extent = std::move(extent);
  ptr_ = std::move(n);
}

Range Range::from_extent(Expr extent) {
  Expr zero = make_zero(extent.dtype());
  return Range(std::move(zero), std::move(extent));
}

void BufferNode::validate() const {
  if (name.empty()) KILN_USER_ERROR() << "buffer without a name";
  if (dtype.lanes() != 1) KILN_USER_ERROR() << "buffer " << name << " has vector type " << dtype.str();
  for (const Expr& e : shape) {
    if (!e.defined() || !e.dtype().is_integral())
      KILN_USER_ERROR() << "buffer " << name << " has a non-integer extent";
  }
  if (align_factor < 0) KILN_USER_ERROR() << "buffer " << name << " has a negative alignment";
  if (align_factor > 0 && (align_axis < 0 || align_axis >= static_cast<int64_t>(shape.size())))
    KILN_USER_ERROR() << "buffer " << name << " is aligned on axis " << align_axis << ", but has " << shape.size()
                      << " dimensions";
  if (align_factor > 0 && (align_offset < 0 || align_offset >= align_factor))
    KILN_USER_ERROR() << "buffer " << name << " has alignment offset " << align_offset << " outside [0, "
                      << align_factor << ")";
}

Buffer::Buffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope) {
  auto n = std::make_shared<BufferNode>();
  n->name = std::move(name);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->scope = std::move(scope);
  n->validate();
  ptr_ = std::move(n);
}

Buffer Buffer::with_shape(std::vector<Expr> shape) const {
  auto n = std::make_shared<BufferNode>(**this);
  n->shape = std::move(shape);
  return Buffer(ObjectPtr(std::move(n)));
}

Buffer Buffer::with_scope(std::string scope) const {
  auto n = std::make_shared<BufferNode>(**this);
  n->scope = std::move(scope);
  return Buffer(ObjectPtr(std::move(n)));
}

IterVar::IterVar(Var var, Range dom, IterType type) {
  auto n = std::make_shared<IterVarNode>();
  n->var = std::move(var);
  n->dom = std::move(dom);
  n->iter_type = type;
  ptr_ = std::move(n);
}

// ---------------------------------------------------------------------------
// Intrinsics and reductions.

const char* intrinsic_name(Intrinsic op) {
  switch (op) {
#define X(name, arity) \
  case Intrinsic::name: return #name;
    KILN_FOR_EACH_INTRINSIC(X)
#undef X
  }
  return "?";
}

int intrinsic_arity(Intrinsic op) {
  switch (op) {
#define X(name, arity) \
  case Intrinsic::name: return arity;
    KILN_FOR_EACH_INTRINSIC(X)
#undef X
  }
  return 0;
}

Intrinsic intrinsic_from_name(const std::string& name) {
#define X(n, arity) \
  if (name == #n) return Intrinsic::n;
  KILN_FOR_EACH_INTRINSIC(X)
#undef X
  KILN_USER_ERROR() << "unknown intrinsic '" << name << "'";
}

void ExprNode::validate() const {
  if (auto e = expr_type_error(*this)) KILN_USER_ERROR() << *e;
}

const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum: return "sum";
    case ReduceKind::kMax: return "max";
    case ReduceKind::kMin: return "min";
    case ReduceKind::kProd: return "prod";
  }
  return "?";
}

Expr reduce_identity(ReduceKind k, DataType t) {
  switch (k) {
    case ReduceKind::kSum: return make_zero(t);
    case ReduceKind::kMax: return min_value(t);
    case ReduceKind::kMin: return max_value(t);
    case ReduceKind::kProd: return make_const(t, 1);
  }
  return Expr();
}

Expr reduce_combine(ReduceKind k, Expr acc, Expr value) {
  switch (k) {
    case ReduceKind::kSum: return add(std::move(acc), std::move(value));
    case ReduceKind::kMax: return max(std::move(acc), std::move(value));
    case ReduceKind::kMin: return min(std::move(acc), std::move(value));
    case ReduceKind::kProd: return mul(std::move(acc), std::move(value));
  }
  return Expr();
}

// ---------------------------------------------------------------------------
// Immediates.

namespace {

template <typename N>
std::shared_ptr<N> new_node(DataType t) {
  auto n = std::make_shared<N>();
  n->dtype = t;
  return n;
}

// Wraps an integer into the range of an integer type (two's complement).
int64_t wrap_int(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits() >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits()) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits() - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}

}  // namespace

Expr int_imm(DataType t, int64_t v) {
  KILN_ICHECK(t.is_integral() && t.is_scalar()) << "int_imm of type " << t.str();
  auto n = new_node<IntImmNode>(t);
  n->value = wrap_int(t, v);
  return Expr(std::move(n));
}

Expr float_imm(DataType t, double v) {
  KILN_ICHECK(t.is_float() && t.is_scalar()) << "float_imm of type " << t.str();
  auto n = new_node<FloatImmNode>(t);
  n->value = t.bits() == 32 ? static_cast<double>(static_cast<float>(v)) : v;
  return Expr(std::move(n));
}

Expr make_const(DataType t, double v) {
  Expr s = t.is_float() ? float_imm(t.element_of(), v) : int_imm(t.element_of(), static_cast<int64_t>(v));
  return t.is_vector() ? broadcast(s, t.lanes()) : s;
}

Expr string_imm(std::string s) {
  auto n = new_node<StringImmNode>(DataType::Handle());
  n->value = std::move(s);
  return Expr(std::move(n));
}

Expr make_zero(DataType t) { return make_const(t, 0); }

Expr max_value(DataType t) {
  DataType e = t.element_of();
  Expr s;
  if (e.is_float()) {
    s = float_imm(e, e.bits() == 32 ? std::numeric_limits<float>::infinity() : std::numeric_limits<double>::infinity());
  } else if (e.is_bool()) {
    s = int_imm(e, 1);
  } else if (e.is_int()) {
    s = int_imm(e, e.bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (e.bits() - 1)) - 1);
  } else {
    s = int_imm(e, e.bits() == 64 ? -1 : static_cast<int64_t>((uint64_t{1} << e.bits()) - 1));
  }
  return t.is_vector() ? broadcast(s, t.lanes()) : s;
}

Expr min_value(DataType t) {
  DataType e = t.element_of();
  Expr s;
  if (e.is_float()) {
    s = float_imm(e, -std::numeric_limits<double>::infinity());
  } else if (e.is_int()) {
    s = int_imm(e, e.bits() == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (e.bits() - 1)));
  } else {
    s = int_imm(e, 0);
  }
  return t.is_vector() ? broadcast(s, t.lanes()) : s;
}

const int64_t* as_const_int(const Expr& e) {
  if (const auto* n = e.as<IntImmNode>()) return &n->value;
  return nullptr;
}
const double* as_const_float(const Expr& e) {
  if (const auto* n = e.as<FloatImmNode>()) return &n->value;
  return nullptr;
}
bool is_const_int(const Expr& e, int64_t v) {
  const int64_t* c = as_const_int(e);
  return c && *c == v;
}
bool is_one(const Expr& e) {
  if (const int64_t* c = as_const_int(e)) return *c == 1;
  if (const double* f = as_const_float(e)) return *f == 1.0;
  return false;
}
bool is_zero(const Expr& e) {
  if (const int64_t* c = as_const_int(e)) return *c == 0;
  if (const double* f = as_const_float(e)) return *f == 0.0;
  return false;
}

// ---------------------------------------------------------------------------
// Operators.

namespace {

// Makes both sides the same type: a constant takes the other side's type,
// a narrower integer widens, a scalar broadcasts to the other's lanes.
void match_types(Expr& a, Expr& b) {
  if (a.dtype() == b.dtype()) return;
  auto is_imm = [](const Expr& e) { return e.as<IntImmNode>() || e.as<FloatImmNode>(); };
  DataType ta = a.dtype(), tb = b.dtype();
  if (ta.lanes() != tb.lanes()) {
    if (ta.lanes() == 1) a = broadcast(a, tb.lanes());
    else if (tb.lanes() == 1) b = broadcast(b, ta.lanes());
    ta = a.dtype();
    tb = b.dtype();
    if (ta == tb) return;
  }
  KILN_ICHECK(ta.lanes() == tb.lanes()) << "lane mismatch: " << ta.str() << " vs " << tb.str();
  if (is_imm(b) && !is_imm(a)) {
    b = cast(ta, b);
  } else if (is_imm(a) && !is_imm(b)) {
    a = cast(tb, a);
  } else if (ta.is_float() && !tb.is_float()) {
    b = cast(ta, b);
  } else if (tb.is_float() && !ta.is_float()) {
    a = cast(tb, a);
  } else if (ta.is_integral() && tb.is_integral()) {
    if (ta.bits() >= tb.bits()) b = cast(ta, b);
    else a = cast(tb, a);
  } else if (ta.is_float() && tb.is_float()) {
    if (ta.bits() >= tb.bits()) b = cast(ta, b);
    else a = cast(tb, a);
  } else {
    KILN_ICHECK(false) << "cannot match types " << ta.str() << " and " << tb.str();
  }
}

// Folds kind(a, b) when both are scalar constants; returns null otherwise.
Expr fold_binary(ExprKind kind, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  const int64_t* ia = as_const_int(a);
  const int64_t* ib = as_const_int(b);
  if (ia && ib) {
    int64_t x = *ia, y = *ib;
    switch (kind) {
      case ExprKind::Add: return int_imm(t, x + y);
      case ExprKind::Sub: return int_imm(t, x - y);
      case ExprKind::Mul: return int_imm(t, x * y);
      case ExprKind::Div: return y == 0 ? Expr() : int_imm(t, x / y);
      case ExprKind::Mod: return y == 0 ? Expr() : int_imm(t, x % y);
      case ExprKind::FloorDiv: return y == 0 ? Expr() : int_imm(t, floordiv_i(x, y));
      case ExprKind::FloorMod: return y == 0 ? Expr() : int_imm(t, floormod_i(x, y));
      case ExprKind::Min: return int_imm(t, std::min(x, y));
      case ExprKind::Max: return int_imm(t, std::max(x, y));
      case ExprKind::EQ: return int_imm(DataType::Bool(), x == y);
      case ExprKind::NE: return int_imm(DataType::Bool(), x != y);
      case ExprKind::LT: return int_imm(DataType::Bool(), x < y);
      case ExprKind::LE: return int_imm(DataType::Bool(), x <= y);
      case ExprKind::GT: return int_imm(DataType::Bool(), x > y);
      case ExprKind::GE: return int_imm(DataType::Bool(), x >= y);
      case ExprKind::And: return int_imm(DataType::Bool(), x && y);
      case ExprKind::Or: return int_imm(DataType::Bool(), x || y);
      default: return Expr();
    }
  }
  const double* fa = as_const_float(a);
  const double* fb = as_const_float(b);
  if (fa && fb) {
    double x = *fa, y = *fb;
    switch (kind) {
      case ExprKind::Add: return float_imm(t, x + y);
      case ExprKind::Sub: return float_imm(t, x - y);
      case ExprKind::Mul: return float_imm(t, x * y);
      case ExprKind::Div: return float_imm(t, x / y);
      case ExprKind::Min: return float_imm(t, std::min(x, y));
      case ExprKind::Max: return float_imm(t, std::max(x, y));
      case ExprKind::EQ: return int_imm(DataType::Bool(), x == y);
      case ExprKind::NE: return int_imm(DataType::Bool(), x != y);
      case ExprKind::LT: return int_imm(DataType::Bool(), x < y);
      case ExprKind::LE: return int_imm(DataType::Bool(), x <= y);
      case ExprKind::GT: return int_imm(DataType::Bool(), x > y);
      case ExprKind::GE: return int_imm(DataType::Bool(), x >= y);
      default: return Expr();
    }
  }
  return Expr();
}

template <typename N>
Expr make_bin_node(DataType t, Expr a, Expr b) {
  auto n = new_node<N>(t);
  n->a = std::move(a);
  n->b = std::move(b);
  return Expr(std::move(n));
}

Expr binary(ExprKind kind, Expr a, Expr b) {
  KILN_ICHECK(a.defined() && b.defined()) << "undefined operand of " << expr_kind_name(kind);
  match_types(a, b);
  if (auto e = binary_operand_error(kind, a.dtype(), b.dtype(), expr_kind_name(kind))) {
    KILN_ICHECK(false) << *e;
  }
  if (Expr f = fold_binary(kind, a, b); f.defined()) return f;
  return make_binary(kind, std::move(a), std::move(b));
}

}  // namespace

Expr make_binary(ExprKind kind, Expr a, Expr b) {
  KILN_ICHECK(a.dtype() == b.dtype()) << expr_kind_name(kind) << " of " << a.dtype().str() << " and "
                                      << b.dtype().str();
  const DataType t = binary_result_type(kind, a.dtype());
  switch (kind) {
#define X(Name, Sym) \
  case ExprKind::Name: return make_bin_node<Name##Node>(t, std::move(a), std::move(b));
    KILN_FOR_EACH_BINARY_EXPR(X)
    KILN_FOR_EACH_CMP_EXPR(X)
    KILN_FOR_EACH_LOGIC_EXPR(X)
#undef X
    default: KILN_ICHECK(false) << expr_kind_name(kind) << " is not a binary operator";
  }
  return Expr();
}

Expr add(Expr a, Expr b) { return binary(ExprKind::Add, std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return binary(ExprKind::Sub, std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return binary(ExprKind::Mul, std::move(a), std::move(b)); }
Expr div(Expr a, Expr b) { return binary(ExprKind::Div, std::move(a), std::move(b)); }
Expr mod(Expr a, Expr b) { return binary(ExprKind::Mod, std::move(a), std::move(b)); }
Expr floordiv(Expr a, Expr b) { return binary(ExprKind::FloorDiv, std::move(a), std::move(b)); }
Expr floormod(Expr a, Expr b) { return binary(ExprKind::FloorMod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return binary(ExprKind::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return binary(ExprKind::Max, std::move(a), std::move(b)); }
Expr eq(Expr a, Expr b) { return binary(ExprKind::EQ, std::move(a), std::move(b)); }
Expr ne(Expr a, Expr b) { return binary(ExprKind::NE, std::move(a), std::move(b)); }
Expr lt(Expr a, Expr b) { return binary(ExprKind::LT, std::move(a), std::move(b)); }
Expr le(Expr a, Expr b) { return binary(ExprKind::LE, std::move(a), std::move(b)); }
Expr gt(Expr a, Expr b) { return binary(ExprKind::GT, std::move(a), std::move(b)); }
Expr ge(Expr a, Expr b) { return binary(ExprKind::GE, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return binary(ExprKind::And, std::move(a), std::move(b)); }
Expr logical_or(Expr a, Expr b) { return binary(ExprKind::Or, std::move(a), std::move(b)); }

Expr logical_not(Expr a) {
  KILN_ICHECK(a.dtype().element_of().is_bool()) << "not of " << a.dtype().str();
  if (const int64_t* c = as_const_int(a)) return int_imm(DataType::Bool(), !*c);
  auto n = new_node<NotNode>(a.dtype());
  n->a = std::move(a);
  return Expr(std::move(n));
}

Expr select(Expr cond, Expr t, Expr f) {
  match_types(t, f);
  KILN_ICHECK(cond.dtype().element_of().is_bool()) << "select condition of type " << cond.dtype().str();
  if (const int64_t* c = as_const_int(cond)) return *c ? t : f;
  auto n = new_node<SelectNode>(t.dtype());
  n->cond = std::move(cond);
  n->true_value = std::move(t);
  n->false_value = std::move(f);
  return Expr(std::move(n));
}

Expr cast(DataType t, Expr v) {
  if (v.dtype() == t) return v;
  if (t.lanes() != v.dtype().lanes() && v.dtype().lanes() == 1) return broadcast(cast(t.element_of(), v), t.lanes());
  KILN_ICHECK(t.lanes() == v.dtype().lanes()) << "cast of " << v.dtype().str() << " to " << t.str();
  if (t.is_scalar()) {
    if (const int64_t* c = as_const_int(v)) {
      if (t.is_float()) return float_imm(t, static_cast<double>(*c));
      if (t.is_integral()) return int_imm(t, *c);
    }
    if (const double* f = as_const_float(v)) {
      if (t.is_float()) return float_imm(t, *f);
      if (t.is_integral() && std::isfinite(*f)) return int_imm(t, static_cast<int64_t>(*f));
    }
  }
  auto n = new_node<CastNode>(t);
  n->value = std::move(v);
  return Expr(std::move(n));
}

Expr ramp(Expr base, Expr stride, int64_t lanes) {
  match_types(base, stride);
  if (auto e = ramp_error(base.dtype(), stride.dtype(), lanes)) {
    KILN_ICHECK(false) << *e;
  }
  auto n = new_node<RampNode>(vector_of(base.dtype(), lanes));
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  return Expr(std::move(n));
}

Expr broadcast(Expr v, int64_t lanes) {
  KILN_ICHECK(lanes > 1 && v.dtype().is_scalar()) << "broadcast of " << v.dtype().str() << " to " << lanes;
  auto n = new_node<BroadcastNode>(vector_of(v.dtype(), lanes));
  n->value = std::move(v);
  n->lanes = lanes;
  return Expr(std::move(n));
}

Expr let(Var v, Expr value, Expr body) {
  KILN_ICHECK(v.dtype() == value.dtype()) << "let " << v.name() << " of " << v.dtype().str() << " = "
                                          << value.dtype().str();
  auto n = new_node<LetNode>(body.dtype());
  n->var = std::move(v);
  n->value = std::move(value);
  n->body = std::move(body);
  return Expr(std::move(n));
}

Expr call(Intrinsic op, std::vector<Expr> args) {
  KILN_ICHECK(!args.empty()) << intrinsic_name(op) << " without arguments";
  for (size_t i = 1; i < args.size(); ++i) match_types(args[0], args[i]);
  for (size_t i = 1; i < args.size(); ++i) match_types(args[0], args[i]);
  auto n = new_node<CallNode>(args[0].dtype());
  n->op = op;
  n->args = std::move(args);
  n->validate();
  return Expr(std::move(n));
}

Expr buffer_load(Buffer b, std::vector<Expr> indices) {
  KILN_ICHECK(b.defined()) << "load from an undefined buffer";
  for (const Expr& i : indices)
    KILN_ICHECK(i.dtype().is_integral()) << "index of " << b.name() << " has type " << i.dtype().str();
  auto n = new_node<BufferLoadNode>(load_type(b.dtype(), indices));
  n->buffer = std::move(b);
  n->indices = std::move(indices);
  return Expr(std::move(n));
}

Expr reduce(ReduceKind k, Expr source, std::vector<IterVar> axis) {
  auto n = new_node<ReduceNode>(source.dtype());
  n->combiner = k;
  n->source = std::move(source);
  n->axis = std::move(axis);
  return Expr(std::move(n));
}

BinaryOperands binary_operands(const Expr& e) { return binary_operands_of(*e.operator->()); }

BinaryOperands binary_operands_of(const ExprNode& node) {
  switch (node.kind) {
#define X(Name, Sym)                                        \
  case ExprKind::Name: {                                    \
    const auto* n = static_cast<const Name##Node*>(&node); \
    return {&n->a, &n->b};                                  \
  }
    KILN_FOR_EACH_BINARY_EXPR(X)
    KILN_FOR_EACH_CMP_EXPR(X)
    KILN_FOR_EACH_LOGIC_EXPR(X)
#undef X
    default: return {};
  }
}

bool is_comparison(ExprKind k) {
  switch (k) {
#define X(Name, Sym) case ExprKind::Name:
    KILN_FOR_EACH_CMP_EXPR(X)
#undef X
    return true;
    default: return false;
  }
}

}  // namespace kiln
