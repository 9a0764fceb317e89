#include "targets/runtime/ndarray.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/error.h"
#include "targets/runtime/half.h"

namespace kiln {
namespace {

// Arrays of a huge page or more (a compiled model's weights and arena, a
// large operand) are laid on 2 MiB pages where the kernel gives them:
// streamed through 4 KiB pages, a 14 MB weight file walks the page tables
// for every 4 KiB and the hardware prefetchers restart at every page
// boundary (docs/measurement.md, "Huge pages"). KILN_HUGE_PAGES=0 turns it
// off, to time the difference.
constexpr size_t kHugePage = size_t{2} << 20;

bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("KILN_HUGE_PAGES");
    return !(v && std::string_view(v) == "0");
  }();
  return wanted;
}

}  // namespace

void NDArray::Free::operator()(void* p) const { std::free(p); }

NDArray::NDArray(DataType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  if (dtype.lanes() != 1 || dtype.is_void()) KILN_USER_ERROR() << "ndarray of type " << dtype.str();
  numel_ = 1;
  for (int64_t e : shape_) {
    if (e < 0) KILN_USER_ERROR() << "ndarray with negative extent " << e;
    numel_ *= e;
  }
  const bool huge = nbytes() >= kHugePage && huge_pages_wanted();
  const size_t alignment = huge ? kHugePage : kAlignment;
  size_t bytes = (std::max<size_t>(nbytes(), 1) + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, bytes);
  if (!p) KILN_USER_ERROR() << "cannot allocate " << bytes << " bytes for an ndarray";
#if defined(MADV_HUGEPAGE)
  // Before the first touch (the memset below), so the pages fault in huge.
  // Advice only: where transparent huge pages are off, 4 KiB pages it is.
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, bytes);
  data_.reset(p);
}

double NDArray::get(int64_t i) const {
  KILN_ICHECK(i >= 0 && i < numel_) << "element " << i << " of " << numel_;
  const void* p = static_cast<const char*>(data()) + i * dtype_.bytes();
  switch (dtype_.code()) {
    case DataType::kFloat:
      if (dtype_.bits() == 16) return half_to_float(*static_cast<const uint16_t*>(p));
      if (dtype_.bits() == 32) return *static_cast<const float*>(p);
      if (dtype_.bits() == 64) return *static_cast<const double*>(p);
      break;
    case DataType::kBFloat: return bfloat16_to_float(*static_cast<const uint16_t*>(p));
    case DataType::kInt:
      switch (dtype_.bits()) {
        case 8: return *static_cast<const int8_t*>(p);
        case 16: return *static_cast<const int16_t*>(p);
        case 32: return *static_cast<const int32_t*>(p);
        case 64: return static_cast<double>(*static_cast<const int64_t*>(p));
      }
      break;
    case DataType::kUInt:
      switch (dtype_.bits()) {
        case 1:
        case 8: return *static_cast<const uint8_t*>(p);
        case 16: return *static_cast<const uint16_t*>(p);
        case 32: return *static_cast<const uint32_t*>(p);
        case 64: return static_cast<double>(*static_cast<const uint64_t*>(p));
      }
      break;
    default: break;
  }
  KILN_USER_ERROR() << "ndarray element access for type " << dtype_.str();
}

void NDArray::set(int64_t i, double v) {
  KILN_ICHECK(i >= 0 && i < numel_) << "element " << i << " of " << numel_;
  void* p = static_cast<char*>(data()) + i * dtype_.bytes();
  switch (dtype_.code()) {
    case DataType::kFloat:
      if (dtype_.bits() == 16) { *static_cast<uint16_t*>(p) = float_to_half(static_cast<float>(v)); return; }
      if (dtype_.bits() == 32) { *static_cast<float*>(p) = static_cast<float>(v); return; }
      if (dtype_.bits() == 64) { *static_cast<double*>(p) = v; return; }
      break;
    case DataType::kBFloat: *static_cast<uint16_t*>(p) = float_to_bfloat16(static_cast<float>(v)); return;
    case DataType::kInt:
      switch (dtype_.bits()) {
        case 8: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); return;
        case 16: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); return;
        case 32: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); return;
        case 64: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); return;
      }
      break;
    case DataType::kUInt:
      switch (dtype_.bits()) {
        case 1: *static_cast<uint8_t*>(p) = v != 0; return;
        case 8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); return;
        case 16: *static_cast<uint16_t*>(p) = static_cast<uint16_t>(v); return;
        case 32: *static_cast<uint32_t*>(p) = static_cast<uint32_t>(v); return;
        case 64: *static_cast<uint64_t*>(p) = static_cast<uint64_t>(v); return;
      }
      break;
    default: break;
  }
  KILN_USER_ERROR() << "ndarray element access for type " << dtype_.str();
}

void NDArray::fill_random(uint64_t seed, double lo, double hi) {
  // A fixed generator and hand-written scaling: the standard distributions
  // may differ between library implementations, the engine does not.
  std::mt19937_64 rng(seed);
  const double unit = 1.0 / 18446744073709551616.0;  // 2^-64
  for (int64_t i = 0; i < numel_; ++i) {
    double u = static_cast<double>(rng()) * unit;  // [0, 1)
    double v;
    if (dtype_.is_bool()) {
      v = u < 0.5 ? 0 : 1;
    } else if (dtype_.is_float()) {
      v = lo + (hi - lo) * u;
    } else {
      double a = std::ceil(lo), b = std::floor(hi);
      if (dtype_.is_uint()) a = std::max(a, 0.0);
      double range_hi = dtype_.bits() >= 53 ? 9007199254740992.0 : std::ldexp(1.0, dtype_.bits() - (dtype_.is_int() ? 1 : 0)) - 1;
      double range_lo = dtype_.is_int() ? -range_hi - 1 : 0;
      a = std::max(a, range_lo);
      b = std::min(b, range_hi);
      v = b < a ? a : a + std::floor(u * (b - a + 1));
    }
    set(i, v);
  }
}

NDArray NDArray::copy() const {
  NDArray out(dtype_, shape_);
  std::memcpy(out.data(), data(), nbytes());
  return out;
}

HostBuffer NDArray::host_buffer() {
  HostBuffer b;
  b.dtype = dtype_;
  b.shape = shape_;
  b.data = data();
  return b;
}

}  // namespace kiln
