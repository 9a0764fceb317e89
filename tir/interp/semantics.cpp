#include "tir/interp/semantics.h"

#include <string>

namespace kiln::interp {

IntType int_type(DataType t) {
  KILN_ICHECK(t.is_integral()) << "int_type of " << t.str();
  return IntType{t.bits(), t.is_int()};
}

FloatFormat float_format(DataType t) {
  KILN_ICHECK(t.is_float()) << "float_format of " << t.str();
  if (t.code() == DataType::kBFloat) return FloatFormat::kBF16;
  switch (t.bits()) {
    case 64: return FloatFormat::kF64;
    case 32: return FloatFormat::kF32;
    case 16: return FloatFormat::kF16;
    default: KILN_USER_ERROR() << "float type " << t.str() << " is not supported";
  }
}

FloatFormat compute_format(DataType t) { return computes_in_double(t) ? FloatFormat::kF64 : FloatFormat::kF32; }

void throw_division_by_zero(ExprKind k) {
  KILN_USER_ERROR() << "integer division by zero in " << expr_kind_name(k);
}

double int_to_float(int64_t v, IntType from, FloatFormat to) {
  // float32 converts in one step: going through double would round twice for
  // integers beyond 2^53.
  if (to == FloatFormat::kF32) {
    return from.is_u64() ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
  }
  double d = from.is_u64() ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v);
  return round_to_format(to, d);
}

int64_t float_to_int(double v, IntType to) {
  if (to.bits == 1) return v != 0.0;
  double t = std::trunc(v);
  double lo = to.is_signed ? -std::ldexp(1.0, to.bits - 1) : 0.0;
  double hi = std::ldexp(1.0, to.is_signed ? to.bits - 1 : to.bits);
  if (!(t >= lo && t < hi)) {
    KILN_USER_ERROR() << "cast of " << v << " to " << (to.is_signed ? "int" : "uint") << to.bits
                      << " is out of range";
  }
  if (to.is_u64() && t >= std::ldexp(1.0, 63)) return static_cast<int64_t>(static_cast<uint64_t>(t));
  return static_cast<int64_t>(t);
}

double float_intrinsic(Intrinsic op, const double* a) {
  switch (op) {
    case Intrinsic::exp: return std::exp(a[0]);
    case Intrinsic::log: return std::log(a[0]);
    case Intrinsic::sqrt: return std::sqrt(a[0]);
    case Intrinsic::rsqrt: return 1.0 / std::sqrt(a[0]);
    case Intrinsic::tanh: return std::tanh(a[0]);
    case Intrinsic::sigmoid: return 1.0 / (1.0 + std::exp(-a[0]));
    case Intrinsic::erf: return std::erf(a[0]);
    case Intrinsic::abs: return std::fabs(a[0]);
    case Intrinsic::floor: return std::floor(a[0]);
    case Intrinsic::ceil: return std::ceil(a[0]);
    case Intrinsic::round: return std::nearbyint(a[0]);  // ties to even
    case Intrinsic::sin: return std::sin(a[0]);
    case Intrinsic::cos: return std::cos(a[0]);
    case Intrinsic::tan: return std::tan(a[0]);
    case Intrinsic::asin: return std::asin(a[0]);
    case Intrinsic::acos: return std::acos(a[0]);
    case Intrinsic::atan: return std::atan(a[0]);
    case Intrinsic::sinh: return std::sinh(a[0]);
    case Intrinsic::cosh: return std::cosh(a[0]);
    case Intrinsic::asinh: return std::asinh(a[0]);
    case Intrinsic::acosh: return std::acosh(a[0]);
    case Intrinsic::atanh: return std::atanh(a[0]);
    case Intrinsic::pow: return std::pow(a[0], a[1]);
    case Intrinsic::fma: return std::fma(a[0], a[1], a[2]);
  }
  return 0.0;
}

bool has_int_intrinsic(Intrinsic op) {
  return op == Intrinsic::abs || op == Intrinsic::floor || op == Intrinsic::ceil || op == Intrinsic::round;
}

int64_t int_intrinsic(Intrinsic op, int64_t a, IntType t) {
  KILN_ICHECK(has_int_intrinsic(op)) << intrinsic_name(op) << " of an integer";
  if (op == Intrinsic::abs && t.is_signed && a < 0) return wrap(static_cast<int64_t>(0 - static_cast<uint64_t>(a)), t);
  return a;
}

namespace {

template <ExprKind K>
Scalar arith_lane(DataType t, Scalar a, Scalar b) {
  Scalar r;
  if (t.is_float()) {
    r.f = computes_in_double(t) ? float_binary<K, true>(a.f, b.f) : float_binary<K, false>(a.f, b.f);
  } else {
    r.i = int_binary<K>(a.i, b.i, int_type(t));
  }
  return r;
}

template <ExprKind K>
Scalar compare_lane(DataType t, Scalar a, Scalar b) {
  Scalar r;
  r.i = t.is_float() ? compare<K>(a.f, b.f) : int_compare<K>(a.i, b.i, int_type(t));
  return r;
}

}  // namespace

Scalar binary_lane(ExprKind k, DataType t, Scalar a, Scalar b) {
  switch (k) {
#define X(Name, Sym) \
  case ExprKind::Name: return arith_lane<ExprKind::Name>(t, a, b);
    KILN_FOR_EACH_BINARY_EXPR(X)
#undef X
#define X(Name, Sym) \
  case ExprKind::Name: return compare_lane<ExprKind::Name>(t, a, b);
    KILN_FOR_EACH_CMP_EXPR(X)
#undef X
    case ExprKind::And: return Scalar{.i = (a.i != 0) & (b.i != 0)};
    case ExprKind::Or: return Scalar{.i = (a.i != 0) | (b.i != 0)};
    default: KILN_ICHECK(false) << expr_kind_name(k) << " is not a binary operator";
  }
  return Scalar{};
}

Scalar cast_lane(DataType from, DataType to, Scalar v) {
  Scalar r;
  if (to.is_float()) {
    r.f = from.is_float() ? float_to_float(v.f, float_format(to)) : int_to_float(v.i, int_type(from), float_format(to));
  } else {
    r.i = from.is_float() ? float_to_int(v.f, int_type(to)) : int_to_int(v.i, int_type(to));
  }
  return r;
}

}  // namespace kiln::interp
