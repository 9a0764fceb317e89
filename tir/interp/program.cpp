#include "tir/interp/program.h"

namespace kiln::interp {

int64_t ExprCode::eval_int(Frame&) const {
  KILN_ICHECK(false) << "integer evaluation of a " << dtype_.str() << " expression";
  return 0;
}

double ExprCode::eval_float(Frame&) const {
  KILN_ICHECK(false) << "float evaluation of a " << dtype_.str() << " expression";
  return 0;
}

void ExprCode::eval_lanes(Frame& fr, Scalar* out) const {
  KILN_ICHECK(dtype_.is_scalar()) << "no lane evaluation for " << dtype_.str();
  if (dtype_.is_float()) {
    out[0].f = eval_float(fr);
  } else {
    out[0].i = eval_int(fr);
  }
}

IndexCode IndexCode::constant(int64_t v) {
  IndexCode c;
  c.kind_ = Kind::kConst;
  c.value_ = v;
  return c;
}

IndexCode IndexCode::slot(int s) {
  IndexCode c;
  c.kind_ = Kind::kSlot;
  c.slot_ = s;
  return c;
}

IndexCode IndexCode::general(ExprPtr e) {
  KILN_ICHECK(e->dtype().is_integral() && e->dtype().is_scalar()) << "index of type " << e->dtype().str();
  IndexCode c;
  c.kind_ = Kind::kExpr;
  c.expr_ = std::move(e);
  return c;
}

}  // namespace kiln::interp
