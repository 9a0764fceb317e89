#include "tir/interp/element.h"

#include "core/error.h"

namespace kiln::interp {

Elem elem_of(DataType t) {
  if (t.is_bool()) return Elem::kBool;
  if (t.code() == DataType::kBFloat && t.bits() == 16) return Elem::kBF16;
  if (t.code() == DataType::kFloat) {
    if (t.bits() == 32) return Elem::kF32;
    if (t.bits() == 64) return Elem::kF64;
    if (t.bits() == 16) return Elem::kF16;
  }
  if (t.code() == DataType::kInt || t.code() == DataType::kUInt) {
    bool s = t.code() == DataType::kInt;
    switch (t.bits()) {
      case 8: return s ? Elem::kI8 : Elem::kU8;
      case 16: return s ? Elem::kI16 : Elem::kU16;
      case 32: return s ? Elem::kI32 : Elem::kU32;
      case 64: return s ? Elem::kI64 : Elem::kU64;
      default: break;
    }
  }
  KILN_USER_ERROR() << "data type " << t.str() << " has no memory representation";
}

int elem_bytes(Elem e) {
  return dispatch_elem(e, [](auto k) { return ElemIO<decltype(k)::value>::kBytes; });
}

Scalar read_element(Elem e, const char* base, int64_t index) {
  return dispatch_elem(e, [&](auto k) {
    using IO = ElemIO<decltype(k)::value>;
    Scalar s;
    if constexpr (IO::kFloat) {
      s.f = IO::read(base + index * IO::kBytes);
    } else {
      s.i = IO::read(base + index * IO::kBytes);
    }
    return s;
  });
}

void write_element(Elem e, char* base, int64_t index, Scalar v) {
  dispatch_elem(e, [&](auto k) {
    using IO = ElemIO<decltype(k)::value>;
    if constexpr (IO::kFloat) {
      IO::write(base + index * IO::kBytes, v.f);
    } else {
      IO::write(base + index * IO::kBytes, v.i);
    }
  });
}

}  // namespace kiln::interp
