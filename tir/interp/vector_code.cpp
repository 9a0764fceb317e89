#include "tir/interp/vector_code.h"

namespace kiln::interp {

namespace {

// Scratch for one operand's lanes. Code objects are not re-entered while they
// evaluate, so one buffer per operand suffices.
using Lanes = std::vector<Scalar>;

class VectorVar final : public ExprCode {
 public:
  VectorVar(DataType t, int slot) : ExprCode(t), slot_(slot) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    for (int l = 0; l < lanes(); ++l) out[l] = fr.slots[slot_ + l];
  }

 private:
  int slot_;
};

class VectorBinary final : public ExprCode {
 public:
  VectorBinary(ExprKind k, DataType t, ExprPtr a, ExprPtr b)
      : ExprCode(t), kind_(k), operand_(a->dtype().element_of()), a_(std::move(a)), b_(std::move(b)),
        sa_(t.lanes()), sb_(t.lanes()) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    a_->eval_lanes(fr, sa_.data());
    b_->eval_lanes(fr, sb_.data());
    for (int l = 0; l < lanes(); ++l) out[l] = binary_lane(kind_, operand_, sa_[l], sb_[l]);
  }

 private:
  ExprKind kind_;
  DataType operand_;
  ExprPtr a_, b_;
  mutable Lanes sa_, sb_;
};

class VectorNot final : public ExprCode {
 public:
  explicit VectorNot(ExprPtr a) : ExprCode(a->dtype()), a_(std::move(a)) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    a_->eval_lanes(fr, out);
    for (int l = 0; l < lanes(); ++l) out[l].i = out[l].i == 0;
  }

 private:
  ExprPtr a_;
};

// Both values are evaluated, as generated code may do.
class VectorSelect final : public ExprCode {
 public:
  VectorSelect(ExprPtr c, ExprPtr t, ExprPtr f)
      : ExprCode(t->dtype()), c_(std::move(c)), t_(std::move(t)), f_(std::move(f)), sc_(lanes()),
        st_(lanes()), sf_(lanes()) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    c_->eval_lanes(fr, sc_.data());
    t_->eval_lanes(fr, st_.data());
    f_->eval_lanes(fr, sf_.data());
    const bool scalar_cond = c_->lanes() == 1;
    for (int l = 0; l < lanes(); ++l) out[l] = sc_[scalar_cond ? 0 : l].i ? st_[l] : sf_[l];
  }

 private:
  ExprPtr c_, t_, f_;
  mutable Lanes sc_, st_, sf_;
};

class VectorCast final : public ExprCode {
 public:
  VectorCast(DataType t, ExprPtr v) : ExprCode(t), v_(std::move(v)), sv_(t.lanes()) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    v_->eval_lanes(fr, sv_.data());
    DataType from = v_->dtype().element_of(), to = dtype().element_of();
    for (int l = 0; l < lanes(); ++l) out[l] = cast_lane(from, to, sv_[l]);
  }

 private:
  ExprPtr v_;
  mutable Lanes sv_;
};

// Lane l is base + l * stride, computed in the element type.
class VectorRamp final : public ExprCode {
 public:
  VectorRamp(DataType t, ExprPtr base, ExprPtr stride) : ExprCode(t), base_(std::move(base)), stride_(std::move(stride)) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    Scalar b, s;
    base_->eval_lanes(fr, &b);
    stride_->eval_lanes(fr, &s);
    DataType e = dtype().element_of();
    for (int l = 0; l < lanes(); ++l) {
      Scalar step = e.is_float() ? Scalar{.f = static_cast<double>(l)} : Scalar{.i = l};
      out[l] = binary_lane(ExprKind::Add, e, b, binary_lane(ExprKind::Mul, e, step, s));
    }
  }

 private:
  ExprPtr base_, stride_;
};

class VectorBroadcast final : public ExprCode {
 public:
  VectorBroadcast(DataType t, ExprPtr v) : ExprCode(t), v_(std::move(v)) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    Scalar s;
    v_->eval_lanes(fr, &s);
    for (int l = 0; l < lanes(); ++l) out[l] = s;
  }

 private:
  ExprPtr v_;
};

class VectorCall final : public ExprCode {
 public:
  VectorCall(DataType t, Intrinsic op, std::vector<ExprPtr> args) : ExprCode(t), op_(op), args_(std::move(args)) {
    for (size_t i = 0; i < args_.size(); ++i) scratch_.emplace_back(lanes());
  }
  void eval_lanes(Frame& fr, Scalar* out) const override {
    for (size_t i = 0; i < args_.size(); ++i) args_[i]->eval_lanes(fr, scratch_[i].data());
    DataType e = dtype().element_of();
    for (int l = 0; l < lanes(); ++l) {
      if (e.is_float()) {
        double a[3] = {0, 0, 0};
        for (size_t i = 0; i < args_.size(); ++i) a[i] = scratch_[i][l].f;
        out[l].f = round_to_format(compute_format(e), float_intrinsic(op_, a));
      } else {
        out[l].i = int_intrinsic(op_, scratch_[0][l].i, int_type(e));
      }
    }
  }

 private:
  Intrinsic op_;
  std::vector<ExprPtr> args_;
  mutable std::vector<Lanes> scratch_;
};

}  // namespace

ExprPtr vector_var(DataType t, int first_slot) { return std::make_unique<VectorVar>(t, first_slot); }
ExprPtr vector_binary(ExprKind k, DataType result, ExprPtr a, ExprPtr b) {
  return std::make_unique<VectorBinary>(k, result, std::move(a), std::move(b));
}
ExprPtr vector_not(ExprPtr a) { return std::make_unique<VectorNot>(std::move(a)); }
ExprPtr vector_select(ExprPtr c, ExprPtr t, ExprPtr f) {
  return std::make_unique<VectorSelect>(std::move(c), std::move(t), std::move(f));
}
ExprPtr vector_cast(DataType to, ExprPtr v) { return std::make_unique<VectorCast>(to, std::move(v)); }
ExprPtr vector_ramp(DataType t, ExprPtr base, ExprPtr stride) {
  return std::make_unique<VectorRamp>(t, std::move(base), std::move(stride));
}
ExprPtr vector_broadcast(DataType t, ExprPtr v) { return std::make_unique<VectorBroadcast>(t, std::move(v)); }
ExprPtr vector_call(DataType t, Intrinsic op, std::vector<ExprPtr> args) {
  return std::make_unique<VectorCall>(t, op, std::move(args));
}

}  // namespace kiln::interp
