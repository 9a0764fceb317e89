// Expressions: the scalar fast paths (one class per kind and result kind,
// templated on the operator so each evaluation is one virtual call plus the
// operation) and the dispatch to the vector path.
#include <utility>

#include "tir/interp/compiler.h"
#include "core/expr_type.h"
#include "tir/interp/vector_code.h"

namespace kiln::interp {

namespace {

class IntConst final : public ExprCode {
 public:
  IntConst(DataType t, int64_t v) : ExprCode(t), v_(v) {}
  int64_t eval_int(Frame&) const override { return v_; }

 private:
  int64_t v_;
};

class FloatConst final : public ExprCode {
 public:
  FloatConst(DataType t, double v) : ExprCode(t), v_(v) {}
  double eval_float(Frame&) const override { return v_; }

 private:
  double v_;
};

class IntSlot final : public ExprCode {
 public:
  IntSlot(DataType t, int s) : ExprCode(t), s_(s) {}
  int64_t eval_int(Frame& fr) const override { return fr.slots[s_].i; }

 private:
  int s_;
};

class FloatSlot final : public ExprCode {
 public:
  FloatSlot(DataType t, int s) : ExprCode(t), s_(s) {}
  double eval_float(Frame& fr) const override { return fr.slots[s_].f; }

 private:
  int s_;
};

template <ExprKind K>
class IntBinary final : public ExprCode {
 public:
  IntBinary(DataType t, ExprPtr a, ExprPtr b) : ExprCode(t), a_(std::move(a)), b_(std::move(b)), t_(int_type(t)) {}
  int64_t eval_int(Frame& fr) const override {
    int64_t a = a_->eval_int(fr);
    int64_t b = b_->eval_int(fr);
    return int_binary<K>(a, b, t_);
  }

 private:
  ExprPtr a_, b_;
  IntType t_;
};

template <ExprKind K, bool D>
class FloatBinary final : public ExprCode {
 public:
  FloatBinary(DataType t, ExprPtr a, ExprPtr b) : ExprCode(t), a_(std::move(a)), b_(std::move(b)) {}
  double eval_float(Frame& fr) const override {
    double a = a_->eval_float(fr);
    double b = b_->eval_float(fr);
    return float_binary<K, D>(a, b);
  }

 private:
  ExprPtr a_, b_;
};
template <ExprKind K>
using FloatBinaryF32 = FloatBinary<K, false>;
template <ExprKind K>
using FloatBinaryF64 = FloatBinary<K, true>;

template <ExprKind K>
class IntCompare final : public ExprCode {
 public:
  IntCompare(DataType t, ExprPtr a, ExprPtr b) : ExprCode(t), t_(int_type(a->dtype())), a_(std::move(a)), b_(std::move(b)) {}
  int64_t eval_int(Frame& fr) const override {
    int64_t a = a_->eval_int(fr);
    int64_t b = b_->eval_int(fr);
    return int_compare<K>(a, b, t_);
  }

 private:
  IntType t_;
  ExprPtr a_, b_;
};

template <ExprKind K>
class FloatCompare final : public ExprCode {
 public:
  FloatCompare(DataType t, ExprPtr a, ExprPtr b) : ExprCode(t), a_(std::move(a)), b_(std::move(b)) {}
  int64_t eval_int(Frame& fr) const override {
    double a = a_->eval_float(fr);
    double b = b_->eval_float(fr);
    return compare<K>(a, b);
  }

 private:
  ExprPtr a_, b_;
};

// And/Or evaluate both sides: expressions do not short-circuit (generated code
// may evaluate both), so an out-of-bounds load on either side is reported.
template <bool kAnd>
class Logic final : public ExprCode {
 public:
  Logic(DataType t, ExprPtr a, ExprPtr b) : ExprCode(t), a_(std::move(a)), b_(std::move(b)) {}
  int64_t eval_int(Frame& fr) const override {
    bool a = a_->eval_int(fr) != 0;
    bool b = b_->eval_int(fr) != 0;
    return kAnd ? (a && b) : (a || b);
  }

 private:
  ExprPtr a_, b_;
};

class NotCode final : public ExprCode {
 public:
  explicit NotCode(ExprPtr a) : ExprCode(a->dtype()), a_(std::move(a)) {}
  int64_t eval_int(Frame& fr) const override { return a_->eval_int(fr) == 0; }

 private:
  ExprPtr a_;
};

// Both values are evaluated (see Logic).
class SelectCode final : public ExprCode {
 public:
  SelectCode(ExprPtr c, ExprPtr t, ExprPtr f) : ExprCode(t->dtype()), c_(std::move(c)), t_(std::move(t)), f_(std::move(f)) {}
  int64_t eval_int(Frame& fr) const override {
    bool c = c_->eval_int(fr) != 0;
    int64_t t = t_->eval_int(fr);
    int64_t f = f_->eval_int(fr);
    return c ? t : f;
  }
  double eval_float(Frame& fr) const override {
    bool c = c_->eval_int(fr) != 0;
    double t = t_->eval_float(fr);
    double f = f_->eval_float(fr);
    return c ? t : f;
  }

 private:
  ExprPtr c_, t_, f_;
};

class CastCode final : public ExprCode {
 public:
  CastCode(DataType to, ExprPtr v) : ExprCode(to), from_(v->dtype()), v_(std::move(v)) {}
  int64_t eval_int(Frame& fr) const override {
    if (from_.is_float()) return float_to_int(v_->eval_float(fr), int_type(dtype()));
    return int_to_int(v_->eval_int(fr), int_type(dtype()));
  }
  double eval_float(Frame& fr) const override {
    if (from_.is_float()) return float_to_float(v_->eval_float(fr), float_format(dtype()));
    return int_to_float(v_->eval_int(fr), int_type(from_), float_format(dtype()));
  }

 private:
  DataType from_;
  ExprPtr v_;
};

// let var = value in body: the value's lanes go to the variable's slots.
class LetCode final : public ExprCode {
 public:
  LetCode(int slot, ExprPtr value, ExprPtr body)
      : ExprCode(body->dtype()), slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  int64_t eval_int(Frame& fr) const override {
    value_->eval_lanes(fr, fr.slots + slot_);
    return body_->eval_int(fr);
  }
  double eval_float(Frame& fr) const override {
    value_->eval_lanes(fr, fr.slots + slot_);
    return body_->eval_float(fr);
  }
  void eval_lanes(Frame& fr, Scalar* out) const override {
    value_->eval_lanes(fr, fr.slots + slot_);
    body_->eval_lanes(fr, out);
  }

 private:
  int slot_;
  ExprPtr value_, body_;
};

class IntCall final : public ExprCode {
 public:
  IntCall(DataType t, Intrinsic op, ExprPtr a) : ExprCode(t), op_(op), a_(std::move(a)), t_(int_type(t)) {}
  int64_t eval_int(Frame& fr) const override { return int_intrinsic(op_, a_->eval_int(fr), t_); }

 private:
  Intrinsic op_;
  ExprPtr a_;
  IntType t_;
};

class FloatCall final : public ExprCode {
 public:
  FloatCall(DataType t, Intrinsic op, std::vector<ExprPtr> args)
      : ExprCode(t), op_(op), args_(std::move(args)), format_(compute_format(t)) {}
  double eval_float(Frame& fr) const override {
    double a[3] = {0, 0, 0};
    for (size_t i = 0; i < args_.size(); ++i) a[i] = args_[i]->eval_float(fr);
    return round_to_format(format_, float_intrinsic(op_, a));
  }

 private:
  Intrinsic op_;
  std::vector<ExprPtr> args_;
  FloatFormat format_;
};

// Instantiates Node<K> for a runtime operator kind.
template <template <ExprKind> class Node>
ExprPtr make_arith(ExprKind k, DataType t, ExprPtr a, ExprPtr b) {
  switch (k) {
#define X(Name, Sym) \
  case ExprKind::Name: return std::make_unique<Node<ExprKind::Name>>(t, std::move(a), std::move(b));
    KILN_FOR_EACH_BINARY_EXPR(X)
#undef X
    default: break;
  }
  KILN_ICHECK(false) << expr_kind_name(k) << " is not arithmetic";
  return nullptr;
}

template <template <ExprKind> class Node>
ExprPtr make_compare(ExprKind k, DataType t, ExprPtr a, ExprPtr b) {
  switch (k) {
#define X(Name, Sym) \
  case ExprKind::Name: return std::make_unique<Node<ExprKind::Name>>(t, std::move(a), std::move(b));
    KILN_FOR_EACH_CMP_EXPR(X)
#undef X
    default: break;
  }
  KILN_ICHECK(false) << expr_kind_name(k) << " is not a comparison";
  return nullptr;
}

bool is_arith(ExprKind k) { return k >= ExprKind::Add && k <= ExprKind::Max; }

void check_value_type(DataType t, const char* what) {
  if (t.is_handle() || t.is_void() || t.lanes() < 1)
    KILN_USER_ERROR() << what << " has type " << t.str() << ", which is not a value";
  if (t.is_float()) float_format(t);  // rejects unsupported widths
}

}  // namespace

IndexCode Compiler::index(const Expr& e) {
  if (!e.dtype().is_integral() || !e.dtype().is_scalar())
    KILN_USER_ERROR() << "expected a scalar integer, got an expression of type " << e.dtype().str();
  if (const int64_t* c = as_const_int(e)) return IndexCode::constant(*c);
  if (const auto* v = e.as<VarNode>()) return IndexCode::slot(slot_of(v));
  return IndexCode::general(expr(e));
}

ExprPtr Compiler::expr(const Expr& e) {
  const DataType t = e.dtype();
  const bool vec = t.is_vector();
  const ExprKind k = e.kind();
  if (k == ExprKind::StringImm)
    KILN_USER_ERROR() << "string constant \"" << e.as<StringImmNode>()->value << "\" used as a value";
  if (const auto* v = e.as<VarNode>()) check_value_type(t, ("variable " + v->name).c_str());
  check_value_type(t, expr_kind_name(k));

  if (is_arith(k) || is_comparison(k) || k == ExprKind::And || k == ExprKind::Or) {
    auto [pa, pb] = binary_operands(e);
    const Expr& ea = *pa;
    const Expr& eb = *pb;
    if (auto err = binary_operand_error(k, ea.dtype(), eb.dtype(), expr_kind_name(k))) KILN_USER_ERROR() << *err;
    const DataType ot = ea.dtype();
    ExprPtr a = expr(ea);
    ExprPtr b = expr(eb);
    if (vec) return vector_binary(k, t, std::move(a), std::move(b));
    if (k == ExprKind::And) return std::make_unique<Logic<true>>(t, std::move(a), std::move(b));
    if (k == ExprKind::Or) return std::make_unique<Logic<false>>(t, std::move(a), std::move(b));
    if (is_comparison(k)) {
      if (ot.is_float()) return make_compare<FloatCompare>(k, t, std::move(a), std::move(b));
      return make_compare<IntCompare>(k, t, std::move(a), std::move(b));
    }
    if (t.is_float()) {
      if (computes_in_double(t)) return make_arith<FloatBinaryF64>(k, t, std::move(a), std::move(b));
      return make_arith<FloatBinaryF32>(k, t, std::move(a), std::move(b));
    }
    return make_arith<IntBinary>(k, t, std::move(a), std::move(b));
  }

  switch (k) {
    case ExprKind::IntImm: return std::make_unique<IntConst>(t, e.as<IntImmNode>()->value);
    case ExprKind::FloatImm:
      return std::make_unique<FloatConst>(t, round_to_format(float_format(t), e.as<FloatImmNode>()->value));
    case ExprKind::Var: {
      int s = slot_of(e.as<VarNode>());
      if (vec) return vector_var(t, s);
      if (t.is_float()) return std::make_unique<FloatSlot>(t, s);
      return std::make_unique<IntSlot>(t, s);
    }
    case ExprKind::Not: {
      const auto* n = e.as<NotNode>();
      if (!t.element_of().is_bool()) KILN_USER_ERROR() << "Not of " << t.str();
      return vec ? vector_not(expr(n->a)) : std::make_unique<NotCode>(expr(n->a));
    }
    case ExprKind::Select: {
      const auto* n = e.as<SelectNode>();
      DataType ct = n->cond.dtype();
      if (!ct.element_of().is_bool() || (ct.lanes() != 1 && ct.lanes() != t.lanes()) ||
          n->true_value.dtype() != t || n->false_value.dtype() != t)
        KILN_USER_ERROR() << "select of " << n->true_value.dtype().str() << " and " << n->false_value.dtype().str()
                          << " on a " << ct.str() << " condition";
      ExprPtr c = expr(n->cond), a = expr(n->true_value), b = expr(n->false_value);
      if (vec) return vector_select(std::move(c), std::move(a), std::move(b));
      return std::make_unique<SelectCode>(std::move(c), std::move(a), std::move(b));
    }
    case ExprKind::Cast: {
      const auto* n = e.as<CastNode>();
      if (n->value.dtype().lanes() != t.lanes())
        KILN_USER_ERROR() << "cast of " << n->value.dtype().str() << " to " << t.str() << " changes the lanes";
      ExprPtr v = expr(n->value);
      if (vec) return vector_cast(t, std::move(v));
      return std::make_unique<CastCode>(t, std::move(v));
    }
    case ExprKind::Ramp: {
      const auto* n = e.as<RampNode>();
      if (!n->base.dtype().is_scalar() || n->base.dtype() != n->stride.dtype() || n->lanes != t.lanes())
        KILN_USER_ERROR() << "ramp of " << n->base.dtype().str() << " with stride of " << n->stride.dtype().str();
      return vector_ramp(t, expr(n->base), expr(n->stride));
    }
    case ExprKind::Broadcast: {
      const auto* n = e.as<BroadcastNode>();
      if (!n->value.dtype().is_scalar() || n->lanes != t.lanes())
        KILN_USER_ERROR() << "broadcast of " << n->value.dtype().str() << " to " << t.str();
      return vector_broadcast(t, expr(n->value));
    }
    case ExprKind::Let: {
      const auto* n = e.as<LetNode>();
      if (n->var.dtype() != n->value.dtype())
        KILN_USER_ERROR() << "let " << n->var.name() << " of type " << n->var.dtype().str() << " bound to a "
                          << n->value.dtype().str();
      ExprPtr value = expr(n->value);
      int s = bind_var(n->var);
      ExprPtr body = expr(n->body);
      unbind_var(n->var);
      return std::make_unique<LetCode>(s, std::move(value), std::move(body));
    }
    case ExprKind::Call: {
      const auto* n = e.as<CallNode>();
      if (static_cast<int>(n->args.size()) != intrinsic_arity(n->op))
        KILN_USER_ERROR() << intrinsic_name(n->op) << " takes " << intrinsic_arity(n->op) << " arguments, not "
                          << n->args.size();
      std::vector<ExprPtr> args;
      for (const Expr& a : n->args) {
        if (a.dtype() != t) KILN_USER_ERROR() << intrinsic_name(n->op) << " of " << t.str() << " has a " << a.dtype().str() << " argument";
        args.push_back(expr(a));
      }
      if (!t.is_float() && !has_int_intrinsic(n->op))
        KILN_USER_ERROR() << intrinsic_name(n->op) << " of integer type " << t.str() << " is not supported";
      if (vec) return vector_call(t, n->op, std::move(args));
      if (t.is_float()) return std::make_unique<FloatCall>(t, n->op, std::move(args));
      return std::make_unique<IntCall>(t, n->op, std::move(args[0]));
    }
    case ExprKind::BufferLoad: return load(e.as<BufferLoadNode>());
    case ExprKind::Reduce:
      KILN_USER_ERROR() << "Reduce cannot be interpreted: only compute definitions hold it, and create_prim_func "
                           "turns it into a block";
    default: break;
  }
  KILN_ICHECK(false) << "unhandled expression kind " << expr_kind_name(k);
  return nullptr;
}

}  // namespace kiln::interp
