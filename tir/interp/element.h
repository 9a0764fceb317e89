// How one element of each data type sits in memory, and how it becomes a
// Scalar. Loads and stores are templated on the element kind so the hot
// scalar paths compile to one move and one conversion; the vector path uses
// the switch-based read_element/write_element.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "tir/interp/float_formats.h"
#include "tir/interp/semantics.h"

namespace kiln::interp {

enum class Elem : uint8_t { kF32, kF64, kF16, kBF16, kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kBool };

// The element kind of a scalar type; throws kiln::Error for types that have
// no memory form (handle, odd widths).
Elem elem_of(DataType t);

template <typename T>
inline T load_raw(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
inline void store_raw(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <Elem E>
struct ElemIO;

#define KILN_INT_ELEM(E, T)                                                             \
  template <>                                                                           \
  struct ElemIO<E> {                                                                    \
    static constexpr bool kFloat = false;                                               \
    static constexpr int kBytes = sizeof(T);                                            \
    static int64_t read(const char* p) { return static_cast<int64_t>(load_raw<T>(p)); } \
    static void write(char* p, int64_t v) { store_raw<T>(p, static_cast<T>(v)); }      \
  };
KILN_INT_ELEM(Elem::kI8, int8_t)
KILN_INT_ELEM(Elem::kI16, int16_t)
KILN_INT_ELEM(Elem::kI32, int32_t)
KILN_INT_ELEM(Elem::kI64, int64_t)
KILN_INT_ELEM(Elem::kU8, uint8_t)
KILN_INT_ELEM(Elem::kU16, uint16_t)
KILN_INT_ELEM(Elem::kU32, uint32_t)
KILN_INT_ELEM(Elem::kU64, uint64_t)
#undef KILN_INT_ELEM

// bool is one byte in memory; any non-zero byte reads as true.
template <>
struct ElemIO<Elem::kBool> {
  static constexpr bool kFloat = false;
  static constexpr int kBytes = 1;
  static int64_t read(const char* p) { return load_raw<uint8_t>(p) != 0; }
  static void write(char* p, int64_t v) { store_raw<uint8_t>(p, v != 0); }
};

template <>
struct ElemIO<Elem::kF32> {
  static constexpr bool kFloat = true;
  static constexpr int kBytes = 4;
  static double read(const char* p) { return load_raw<float>(p); }
  static void write(char* p, double v) { store_raw<float>(p, static_cast<float>(v)); }
};

template <>
struct ElemIO<Elem::kF64> {
  static constexpr bool kFloat = true;
  static constexpr int kBytes = 8;
  static double read(const char* p) { return load_raw<double>(p); }
  static void write(char* p, double v) { store_raw<double>(p, v); }
};

template <>
struct ElemIO<Elem::kF16> {
  static constexpr bool kFloat = true;
  static constexpr int kBytes = 2;
  static double read(const char* p) { return decode_half(load_raw<uint16_t>(p)); }
  static void write(char* p, double v) { store_raw<uint16_t>(p, encode_half(v)); }
};

template <>
struct ElemIO<Elem::kBF16> {
  static constexpr bool kFloat = true;
  static constexpr int kBytes = 2;
  static double read(const char* p) { return decode_bfloat16(load_raw<uint16_t>(p)); }
  static void write(char* p, double v) { store_raw<uint16_t>(p, encode_bfloat16(v)); }
};

// Calls f(std::integral_constant<Elem, e>{}) with e known at compile time.
template <typename F>
decltype(auto) dispatch_elem(Elem e, F&& f) {
  switch (e) {
#define KILN_CASE(E) \
  case E: return f(std::integral_constant<Elem, E>{});
    KILN_CASE(Elem::kF32)
    KILN_CASE(Elem::kF64)
    KILN_CASE(Elem::kF16)
    KILN_CASE(Elem::kBF16)
    KILN_CASE(Elem::kI8)
    KILN_CASE(Elem::kI16)
    KILN_CASE(Elem::kI32)
    KILN_CASE(Elem::kI64)
    KILN_CASE(Elem::kU8)
    KILN_CASE(Elem::kU16)
    KILN_CASE(Elem::kU32)
    KILN_CASE(Elem::kU64)
    KILN_CASE(Elem::kBool)
#undef KILN_CASE
  }
  return f(std::integral_constant<Elem, Elem::kF32>{});
}

int elem_bytes(Elem e);
// Element `index` of the array at base.
Scalar read_element(Elem e, const char* base, int64_t index);
void write_element(Elem e, char* base, int64_t index, Scalar v);

}  // namespace kiln::interp
