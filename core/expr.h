// Expressions: immutable value trees with a data type.
//
// The list of expression kinds below drives the plumbing: the ExprKind enum,
// the visitor/mutator dispatch (core/functor.h) and the printer. A test fails
// when a kind lacks printer, equality or JSON support (tests/core/json/node_list_test.cpp).
//
// Integer division comes in two flavours, as in TVM: Div/Mod truncate toward
// zero (C semantics), FloorDiv/FloorMod round toward negative infinity (what
// index arithmetic wants: floordiv(-1, 4) == -1). For floats, Div is plain
// division.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/object.h"

namespace kiln {

#define KILN_FOR_EACH_BINARY_EXPR(X) \
  X(Add, "+")                        \
  X(Sub, "-")                        \
  X(Mul, "*")                        \
  X(Div, "/")                        \
  X(Mod, "%")                        \
  X(FloorDiv, "//")                  \
  X(FloorMod, "floormod")            \
  X(Min, "min")                      \
  X(Max, "max")

#define KILN_FOR_EACH_CMP_EXPR(X) \
  X(EQ, "==")                     \
  X(NE, "!=")                     \
  X(LT, "<")                      \
  X(LE, "<=")                     \
  X(GT, ">")                      \
  X(GE, ">=")

#define KILN_FOR_EACH_LOGIC_EXPR(X) \
  X(And, "&&")                      \
  X(Or, "||")

#define KILN_FOR_EACH_OTHER_EXPR(X) \
  X(IntImm, "")                     \
  X(FloatImm, "")                   \
  X(StringImm, "")                  \
  X(Var, "")                        \
  X(Not, "!")                       \
  X(Select, "")                     \
  X(Cast, "")                       \
  X(Ramp, "")                       \
  X(Broadcast, "")                  \
  X(Let, "")                        \
  X(Call, "")                       \
  X(BufferLoad, "")                 \
  X(Reduce, "")

// X(Name, Symbol) for every expression kind.
#define KILN_FOR_EACH_EXPR(X)   \
  KILN_FOR_EACH_OTHER_EXPR(X)   \
  KILN_FOR_EACH_BINARY_EXPR(X)  \
  KILN_FOR_EACH_CMP_EXPR(X)     \
  KILN_FOR_EACH_LOGIC_EXPR(X)

enum class ExprKind : uint8_t {
#define X(Name, Sym) Name,
  KILN_FOR_EACH_EXPR(X)
#undef X
};
inline constexpr int kNumExprKinds = 0
#define X(Name, Sym) +1
    KILN_FOR_EACH_EXPR(X)
#undef X
    ;
const char* expr_kind_name(ExprKind k);

class ExprNode : public Object {
 public:
  explicit ExprNode(ExprKind k) : kind(k) {}
  const ExprKind kind;
  // The family, for as<ExprNode>() (core/object.h).
  static constexpr char kFamilyTag = 0;
  const void* family_tag() const override { return &kFamilyTag; }
  DataType dtype;
  // The kind's typing rule (core/expr_type.h).
  void validate() const override;
};

class Expr : public ObjectRef {
  KILN_REF(Expr, ObjectRef, ExprNode)
  // Immediates: Expr(3) is an int32 IntImm, Expr(1.5f) a float32 FloatImm.
  Expr(int v);
  Expr(int64_t v);
  Expr(float v);
  Expr(double v) = delete;  // say which float type: use float_imm()

  DataType dtype() const { return (*this)->dtype; }
  ExprKind kind() const { return (*this)->kind; }
};

// Declares an expression node: its kind, type key and fields (dtype first).
#define KILN_EXPR_NODE(Name, ...)                       \
 public:                                                \
  static constexpr ExprKind kKind = ExprKind::Name;     \
  Name##Node() : ExprNode(ExprKind::Name) {}            \
  KILN_NODE(Name##Node, #Name, dtype, ##__VA_ARGS__)

// ---------------------------------------------------------------------------
// Buffers, ranges and iteration variables (used by expressions and statements).

class VarNode : public ExprNode {
 public:
  std::string name;
  bool has_identity() const override { return true; }
  KILN_EXPR_NODE(Var, name)
  KILN_HINTS(name)
};

// A variable. Two Vars are the same variable only if they are the same object;
// the name is a hint for printing.
class Var : public Expr {
  KILN_REF(Var, Expr, VarNode)
  Var(std::string name, DataType dtype = DataType::Int32());
  const std::string& name() const { return (*this)->name; }
};

class RangeNode : public Object {
 public:
  Expr min, extent;
  KILN_NODE(RangeNode, "Range", min, extent)
};

// The half-open interval [min, min + extent).
class Range : public ObjectRef {
  KILN_REF(Range, ObjectRef, RangeNode)
  Range(Expr min, Expr extent);
  static Range from_extent(Expr extent);
};

// A multi-dimensional array in some memory scope. Like Var, a Buffer has
// identity: two buffers with equal shapes are still different buffers.
class BufferNode : public Object {
 public:
  std::string name;
  DataType dtype;
  std::vector<Expr> shape;
  // "global", "local" (registers), "shared" (GPU block memory).
  std::string scope = "global";
  // storage_align: the stride of dimension align_axis (in elements) is
  // padded up to the next value congruent to align_offset modulo
  // align_factor (0 <= align_offset < align_factor); strides of the outer
  // dimensions build on the padded one. align_factor 0 = dense.
  int64_t align_axis = 0;
  int64_t align_factor = 0;
  int64_t align_offset = 0;
  bool has_identity() const override { return true; }
  void validate() const override;
  KILN_NODE(BufferNode, "Buffer", name, dtype, shape, scope, align_axis, align_factor, align_offset)
  KILN_HINTS(name)
};

class Buffer : public ObjectRef {
  KILN_REF(Buffer, ObjectRef, BufferNode)
  Buffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope = "global");
  const std::string& name() const { return (*this)->name; }
  DataType dtype() const { return (*this)->dtype; }
  const std::vector<Expr>& shape() const { return (*this)->shape; }
  int ndim() const { return static_cast<int>((*this)->shape.size()); }
  // The same buffer with another field changed (a new buffer: new identity).
  Buffer with_shape(std::vector<Expr> shape) const;
  Buffer with_scope(std::string scope) const;
};

enum class IterType : uint8_t { kSpatial = 0, kReduce = 1 };

class IterVarNode : public Object {
 public:
  Var var;
  Range dom;
  IterType iter_type = IterType::kSpatial;
  KILN_NODE(IterVarNode, "IterVar", var, dom, iter_type)
  KILN_DEFINES(var)
};

// A block's iteration variable: its domain and whether it is spatial or a
// reduction axis.
class IterVar : public ObjectRef {
  KILN_REF(IterVar, ObjectRef, IterVarNode)
  IterVar(Var var, Range dom, IterType type);
  const Var& var() const { return (*this)->var; }
  const Range& dom() const { return (*this)->dom; }
  bool is_reduce() const { return (*this)->iter_type == IterType::kReduce; }
};

// ---------------------------------------------------------------------------
// Expression nodes.

class IntImmNode : public ExprNode {
 public:
  int64_t value = 0;
  KILN_EXPR_NODE(IntImm, value)
};

class FloatImmNode : public ExprNode {
 public:
  double value = 0;
  KILN_EXPR_NODE(FloatImm, value)
};

// A string constant, only as an annotation value or intrinsic argument.
class StringImmNode : public ExprNode {
 public:
  std::string value;
  KILN_EXPR_NODE(StringImm, value)
};

#define KILN_DECLARE_BINARY(Name, Sym)      \
  class Name##Node : public ExprNode {      \
   public:                                  \
    Expr a, b;                              \
    KILN_EXPR_NODE(Name, a, b)              \
  };
KILN_FOR_EACH_BINARY_EXPR(KILN_DECLARE_BINARY)
KILN_FOR_EACH_CMP_EXPR(KILN_DECLARE_BINARY)
KILN_FOR_EACH_LOGIC_EXPR(KILN_DECLARE_BINARY)
#undef KILN_DECLARE_BINARY

// The operands of a two-operand node (arithmetic, comparison or logic), so
// passes that treat them alike need not switch over every kind.
struct BinaryOperands {
  const Expr* a = nullptr;
  const Expr* b = nullptr;
  explicit operator bool() const { return a != nullptr; }
};
BinaryOperands binary_operands(const Expr& e);  // empty for any other node
BinaryOperands binary_operands_of(const ExprNode& n);
bool is_comparison(ExprKind k);

class NotNode : public ExprNode {
 public:
  Expr a;
  KILN_EXPR_NODE(Not, a)
};

// cond ? true_value : false_value; both sides may be evaluated.
class SelectNode : public ExprNode {
 public:
  Expr cond, true_value, false_value;
  KILN_EXPR_NODE(Select, cond, true_value, false_value)
};

class CastNode : public ExprNode {
 public:
  Expr value;
  KILN_EXPR_NODE(Cast, value)
};

// The vector [base, base + stride, ..., base + (lanes-1) * stride].
class RampNode : public ExprNode {
 public:
  Expr base, stride;
  int64_t lanes = 1;
  KILN_EXPR_NODE(Ramp, base, stride, lanes)
};

class BroadcastNode : public ExprNode {
 public:
  Expr value;
  int64_t lanes = 1;
  KILN_EXPR_NODE(Broadcast, value, lanes)
};

// let var = value in body.
class LetNode : public ExprNode {
 public:
  Var var;
  Expr value, body;
  KILN_EXPR_NODE(Let, var, value, body)
  KILN_DEFINES(var)
};

// Pure intrinsics. Elementwise on vectors. New ones go at the end: the
// enumerators' values are hashed into structural hashes and workload keys.
#define KILN_FOR_EACH_INTRINSIC(X) \
  X(exp, 1)                        \
  X(log, 1)                        \
  X(sqrt, 1)                       \
  X(rsqrt, 1)                      \
  X(tanh, 1)                       \
  X(sigmoid, 1)                    \
  X(erf, 1)                        \
  X(abs, 1)                        \
  X(floor, 1)                      \
  X(ceil, 1)                       \
  X(round, 1)                      \
  X(pow, 2)                        \
  X(fma, 3)                        \
  X(sin, 1)                        \
  X(cos, 1)                        \
  X(tan, 1)                        \
  X(asin, 1)                       \
  X(acos, 1)                       \
  X(atan, 1)                       \
  X(sinh, 1)                       \
  X(cosh, 1)                       \
  X(asinh, 1)                      \
  X(acosh, 1)                      \
  X(atanh, 1)

enum class Intrinsic : uint8_t {
#define X(name, arity) name,
  KILN_FOR_EACH_INTRINSIC(X)
#undef X
};
const char* intrinsic_name(Intrinsic op);
int intrinsic_arity(Intrinsic op);
// Throws kiln::Error for an unknown name.
Intrinsic intrinsic_from_name(const std::string& name);

class CallNode : public ExprNode {
 public:
  Intrinsic op = Intrinsic::exp;
  std::vector<Expr> args;
  KILN_EXPR_NODE(Call, op, args)
};

// buffer[indices]. With a Ramp as the last (flattened) index, a vector load.
class BufferLoadNode : public ExprNode {
 public:
  Buffer buffer;
  std::vector<Expr> indices;
  KILN_EXPR_NODE(BufferLoad, buffer, indices)
};

enum class ReduceKind : uint8_t { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };
const char* reduce_kind_name(ReduceKind k);
// The identity of the combiner: 0 for sum, lowest value for max, highest for
// min, 1 for prod.
Expr reduce_identity(ReduceKind k, DataType t);
// Combines an accumulator with a new value.
Expr reduce_combine(ReduceKind k, Expr acc, Expr value);

// A reduction of `source` over `axis`. Only in compute definitions (tir/te);
// create_prim_func turns it into a block with an init, and the verifier rejects
// it anywhere else.
class ReduceNode : public ExprNode {
 public:
  ReduceKind combiner = ReduceKind::kSum;
  Expr source;
  std::vector<IterVar> axis;
  KILN_EXPR_NODE(Reduce, combiner, source, axis)
  KILN_DEFINES(axis)
};

// ---------------------------------------------------------------------------
// Constructors. They check types (a mismatch is a compiler bug) and fold
// operations on two constants, so te bodies stay small.

Expr int_imm(DataType t, int64_t v);
Expr float_imm(DataType t, double v);
Expr make_const(DataType t, double v);  // int or float immediate of type t
Expr string_imm(std::string s);
Expr make_zero(DataType t);
Expr max_value(DataType t);
Expr min_value(DataType t);

// Unfolded node construction, for passes that must not fold (the simplifier's
// tests, the parser). Types must already match.
Expr make_binary(ExprKind kind, Expr a, Expr b);

Expr add(Expr a, Expr b);
Expr sub(Expr a, Expr b);
Expr mul(Expr a, Expr b);
Expr div(Expr a, Expr b);  // truncating for integers
Expr mod(Expr a, Expr b);  // truncating for integers
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
Expr lt(Expr a, Expr b);
Expr le(Expr a, Expr b);
Expr gt(Expr a, Expr b);
Expr ge(Expr a, Expr b);
Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);
Expr logical_not(Expr a);
Expr select(Expr cond, Expr t, Expr f);
Expr cast(DataType t, Expr v);
Expr ramp(Expr base, Expr stride, int64_t lanes);
Expr broadcast(Expr v, int64_t lanes);
Expr let(Var v, Expr value, Expr body);
Expr call(Intrinsic op, std::vector<Expr> args);
Expr buffer_load(Buffer b, std::vector<Expr> indices);
Expr reduce(ReduceKind k, Expr source, std::vector<IterVar> axis);

inline Expr operator+(Expr a, Expr b) { return add(std::move(a), std::move(b)); }
inline Expr operator-(Expr a, Expr b) { return sub(std::move(a), std::move(b)); }
inline Expr operator*(Expr a, Expr b) { return mul(std::move(a), std::move(b)); }
inline Expr operator/(Expr a, Expr b) { return div(std::move(a), std::move(b)); }
inline Expr operator%(Expr a, Expr b) { return mod(std::move(a), std::move(b)); }
inline Expr operator<(Expr a, Expr b) { return lt(std::move(a), std::move(b)); }
inline Expr operator<=(Expr a, Expr b) { return le(std::move(a), std::move(b)); }
inline Expr operator>(Expr a, Expr b) { return gt(std::move(a), std::move(b)); }
inline Expr operator>=(Expr a, Expr b) { return ge(std::move(a), std::move(b)); }
inline Expr operator&&(Expr a, Expr b) { return logical_and(std::move(a), std::move(b)); }
inline Expr operator||(Expr a, Expr b) { return logical_or(std::move(a), std::move(b)); }
inline Expr operator!(Expr a) { return logical_not(std::move(a)); }
inline Expr operator-(Expr a) {
  Expr zero = make_zero(a.dtype());
  return sub(std::move(zero), std::move(a));
}

// Constant queries.
const int64_t* as_const_int(const Expr& e);  // scalar IntImm, else nullptr
const double* as_const_float(const Expr& e);
bool is_const_int(const Expr& e, int64_t v);
bool is_one(const Expr& e);
bool is_zero(const Expr& e);

}  // namespace kiln
