// The meaning of every scalar operation the interpreter performs, in one place.
//
// The interpreter is the oracle that generated code is compared with, so its
// arithmetic follows what C and LLVM do for the declared types:
//  - Integers of every width live in an int64_t, always wrapped to their
//    declared width (two's complement); uint64 lives there as its bit pattern.
//    Add/Sub/Mul wrap, Div/Mod truncate, FloorDiv/FloorMod round toward
//    negative infinity, and the one overflowing quotient (MIN / -1) wraps.
//    Division by zero is a kiln::Error rather than undefined behaviour.
//  - Floats live in a double. float64 computes in double; float32, float16 and
//    bfloat16 compute in float32 (each result rounded to float32), and narrow
//    formats are rounded only where a value takes that type: a store, a cast,
//    an immediate. Intrinsics compute in double and round to the compute type.
//  - A float to integer cast truncates; NaN, infinities and values outside the
//    target's range are an error (LLVM makes them poison). Casting to bool
//    tests for non-zero.
// Both the fast scalar paths and the lane-by-lane vector path call these.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/expr.h"
#include "tir/interp/float_formats.h"

namespace kiln::interp {

// One value: integral types use i, float types f.
union Scalar {
  int64_t i;
  double f;
};

// An integral type: bits is 1 for bool.
struct IntType {
  int bits = 32;
  bool is_signed = true;
  bool is_u64() const { return bits == 64 && !is_signed; }
};

IntType int_type(DataType t);             // t integral
FloatFormat float_format(DataType t);     // t float: its storage format
FloatFormat compute_format(DataType t);   // t float: kF64 or kF32
inline bool computes_in_double(DataType t) { return t.bits() == 64; }

// Wraps v into t's range (bool keeps the low bit, as LLVM's i1 does).
inline int64_t wrap(int64_t v, IntType t) {
  if (t.bits >= 64) return v;
  const int shift = 64 - t.bits;
  const uint64_t u = static_cast<uint64_t>(v) << shift;
  return t.is_signed ? static_cast<int64_t>(u) >> shift : static_cast<int64_t>(u >> shift);
}

[[noreturn]] void throw_division_by_zero(ExprKind k);

template <ExprKind K>
inline int64_t int_binary(int64_t a, int64_t b, IntType t) {
  using U = uint64_t;
  if constexpr (K == ExprKind::Add) {
    return wrap(static_cast<int64_t>(static_cast<U>(a) + static_cast<U>(b)), t);
  } else if constexpr (K == ExprKind::Sub) {
    return wrap(static_cast<int64_t>(static_cast<U>(a) - static_cast<U>(b)), t);
  } else if constexpr (K == ExprKind::Mul) {
    return wrap(static_cast<int64_t>(static_cast<U>(a) * static_cast<U>(b)), t);
  } else if constexpr (K == ExprKind::Div || K == ExprKind::FloorDiv) {
    if (b == 0) throw_division_by_zero(K);
    if (t.is_u64()) return static_cast<int64_t>(static_cast<U>(a) / static_cast<U>(b));
    if (b == -1) return wrap(static_cast<int64_t>(U{0} - static_cast<U>(a)), t);
    int64_t q = a / b;
    if constexpr (K == ExprKind::FloorDiv) {
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    }
    return q;
  } else if constexpr (K == ExprKind::Mod || K == ExprKind::FloorMod) {
    if (b == 0) throw_division_by_zero(K);
    if (t.is_u64()) return static_cast<int64_t>(static_cast<U>(a) % static_cast<U>(b));
    if (b == -1) return 0;
    int64_t r = a % b;
    if constexpr (K == ExprKind::FloorMod) {
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
    }
    return r;
  } else if constexpr (K == ExprKind::Min) {
    if (t.is_u64()) return static_cast<U>(a) < static_cast<U>(b) ? a : b;
    return a < b ? a : b;
  } else if constexpr (K == ExprKind::Max) {
    if (t.is_u64()) return static_cast<U>(a) > static_cast<U>(b) ? a : b;
    return a > b ? a : b;
  } else {
    static_assert(K == ExprKind::Add, "not an arithmetic operator");
  }
}

// Rounds an intermediate result to the compute type: float32 unless D.
template <bool D>
inline double round_compute(double x) {
  if constexpr (D) {
    return x;
  } else {
    return static_cast<double>(static_cast<float>(x));
  }
}

// Min/Max are select(a < b, a, b) and select(a > b, a, b), as generated code
// writes them; FloorDiv/FloorMod round each step to the compute type.
template <ExprKind K, bool D>
inline double float_binary(double a, double b) {
  if constexpr (K == ExprKind::Add) {
    return round_compute<D>(a + b);
  } else if constexpr (K == ExprKind::Sub) {
    return round_compute<D>(a - b);
  } else if constexpr (K == ExprKind::Mul) {
    return round_compute<D>(a * b);
  } else if constexpr (K == ExprKind::Div) {
    return round_compute<D>(a / b);
  } else if constexpr (K == ExprKind::Mod) {
    return round_compute<D>(std::fmod(a, b));
  } else if constexpr (K == ExprKind::FloorDiv) {
    return std::floor(round_compute<D>(a / b));
  } else if constexpr (K == ExprKind::FloorMod) {
    double q = std::floor(round_compute<D>(a / b));
    return round_compute<D>(a - round_compute<D>(q * b));
  } else if constexpr (K == ExprKind::Min) {
    return a < b ? a : b;
  } else if constexpr (K == ExprKind::Max) {
    return a > b ? a : b;
  } else {
    static_assert(K == ExprKind::Add, "not an arithmetic operator");
  }
}

template <ExprKind K, typename T>
inline bool compare(T a, T b) {
  if constexpr (K == ExprKind::EQ) return a == b;
  if constexpr (K == ExprKind::NE) return a != b;
  if constexpr (K == ExprKind::LT) return a < b;
  if constexpr (K == ExprKind::LE) return a <= b;
  if constexpr (K == ExprKind::GT) return a > b;
  if constexpr (K == ExprKind::GE) return a >= b;
}

template <ExprKind K>
inline bool int_compare(int64_t a, int64_t b, IntType t) {
  if (t.is_u64()) return compare<K>(static_cast<uint64_t>(a), static_cast<uint64_t>(b));
  return compare<K>(a, b);
}

// Casts between scalar types.
inline int64_t int_to_int(int64_t v, IntType to) { return to.bits == 1 ? (v != 0) : wrap(v, to); }
double int_to_float(int64_t v, IntType from, FloatFormat to);
int64_t float_to_int(double v, IntType to);  // throws when out of range
inline double float_to_float(double v, FloatFormat to) { return round_to_format(to, v); }

// Intrinsics on a scalar. Float: computed in double, then rounded to the
// compute type by the caller. Integer: only abs, floor, ceil and round.
double float_intrinsic(Intrinsic op, const double* args);
int64_t int_intrinsic(Intrinsic op, int64_t a, IntType t);
bool has_int_intrinsic(Intrinsic op);

// Lane-by-lane forms for the vector path. `operand` is the scalar type of
// the operands (for comparisons the operands', not the bool result's).
Scalar binary_lane(ExprKind k, DataType operand, Scalar a, Scalar b);
Scalar cast_lane(DataType from, DataType to, Scalar v);

}  // namespace kiln::interp
